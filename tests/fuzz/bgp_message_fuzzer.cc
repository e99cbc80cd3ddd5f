// libFuzzer target: BGP messages (OPEN, UPDATE, NOTIFICATION, ROUTE-REFRESH) through the framer
// and decoders, under every combination of session parameters.
//
// Input: one octet choosing the session parameters, then a byte stream of messages. Besides
// "no crash, no leak", it checks that what decodes cleanly re-encodes to something that decodes
// to the same thing (OPEN, UPDATE via EncodeOne, and UPDATE packing).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "bgp/wire/message_framer.h"
#include "bgp/wire/open_message.h"
#include "bgp/wire/update_decoder.h"
#include "bgp/wire/update_encoder.h"

namespace sluice::bgp {
namespace {

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "fuzz invariant broken: %s\n", what);
    std::abort();
  }
}

SessionParams ParamsFrom(uint8_t mode) {
  SessionParams p;
  p.four_octet_as = mode & 1;
  p.extended_message = mode & 2;
  p.external = mode & 4;
  p.mrt = mode & 8;
  if (mode & 16) {
    p.add_path_receive = AfiSafiSet::All();
    p.add_path_send = AfiSafiSet::All();
  }
  if (mode & 32) {
    p.families = AfiSafiSet::All();
  } else {
    p.families.Add(kIPv6Unicast);
  }
  return p;
}

void FuzzUpdate(Bytes message, const SessionParams& p, AttributeStore* store) {
  UpdateDecoder decoder(p, store);
  UpdateMessage u;
  decoder.Decode(message, &u);
  if (u.errors.session_reset) {
    Check(u.announced.empty() && u.withdrawn.empty() && !u.attributes, "reset leaves nothing");
    Check(u.errors.notification.code != 0, "reset has a NOTIFICATION");
    return;
  }
  Check(u.announced.empty() == !u.attributes, "attributes exactly when announcing");
  if (!u.errors.ok()) return;

  // Decode → encode → decode gives the same UPDATE. (Not for a 2-octet session's path with
  // confederation segments: AS4_PATH cannot carry those, RFC 6793 §4.2.2.)
  if (!p.four_octet_as && u.attributes && u.attributes->as_path &&
      u.attributes->as_path->HasConfedSegments()) {
    return;
  }
  // An UPDATE that says nothing (path attributes without NLRI) re-encodes as an empty UPDATE,
  // which reads as End-of-RIB: nothing to compare.
  if (u.withdrawn.empty() && u.announced.empty() && !u.end_of_rib) return;
  UpdateEncoder exact(p, /*readvertise=*/false);
  std::vector<uint8_t> wire;
  if (exact.EncodeOne(u, &wire).ok()) {
    UpdateMessage again;
    decoder.Decode(wire, &again);
    Check(again.errors.ok(), "re-encoded UPDATE decodes without error");
    Check(again.withdrawn == u.withdrawn, "same withdrawn");
    Check(again.announced == u.announced, "same announced");
    Check(again.attributes == u.attributes, "same attribute set");
    Check(again.end_of_rib == u.end_of_rib, "same End-of-RIB");
  }

  // Packing the announced routes gives messages that decode to the same routes.
  if (!u.announced.empty() && u.errors.ok()) {
    std::vector<uint8_t> packed;
    auto n = UpdateEncoder(p).Pack(&*u.attributes, u.announced, u.withdrawn, &packed);
    if (!n.ok()) return;
    std::vector<Nlri> announced, withdrawn;
    size_t at = 0;
    UpdateMessage part;
    while (at < packed.size()) {
      const size_t len = LoadU16(packed.data() + at + 16);
      Check(len <= p.max_message_size(), "packed message within the maximum size");
      decoder.Decode(Bytes(packed.data() + at, len), &part);
      Check(part.errors.ok() || part.errors.action() == UpdateAction::kTreatAsWithdraw,
            "packed message decodes");
      if (!part.errors.ok()) return;  // e.g. a martian NEXT_HOP accepted in MRT mode
      announced.insert(announced.end(), part.announced.begin(), part.announced.end());
      withdrawn.insert(withdrawn.end(), part.withdrawn.begin(), part.withdrawn.end());
      at += len;
    }
    Check(announced.size() == u.announced.size(), "packing keeps every announcement");
    Check(withdrawn.size() == u.withdrawn.size(), "packing keeps every withdrawal");
  }
}

void FuzzOpen(Bytes message) {
  OpenMessage open;
  Notification error;
  if (!DecodeOpen(message, &open, &error).ok()) {
    Check(error.code != 0, "OPEN error has a NOTIFICATION");
    return;
  }
  std::vector<uint8_t> wire;
  if (!AppendOpen(open, &wire).ok()) return;
  OpenMessage again;
  Check(DecodeOpen(wire, &again, &error).ok(), "re-encoded OPEN decodes");
  Check(again.capabilities.multiprotocol == open.capabilities.multiprotocol, "same families");
  Check(again.AsNumber() == open.AsNumber(), "same AS");
  Negotiate(open, again, true);
}

}  // namespace
}  // namespace sluice::bgp

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::bgp;
  if (size < 1) return 0;
  static AttributeStore* store = new AttributeStore();  // shared across inputs, never freed
  const SessionParams p = ParamsFrom(data[0]);
  const Bytes stream(data + 1, size - 1);

  MessageFramer framer(p.max_message_size());
  framer.Append(stream);
  Bytes message;
  Notification error;
  MessageFramer::Result r;
  while ((r = framer.Next(&message, &error)) == MessageFramer::Result::kMessage) {
    switch (MessageType(message[18])) {
      case MessageType::kOpen:
        FuzzOpen(message);
        break;
      case MessageType::kUpdate:
        FuzzUpdate(message, p, store);
        break;
      case MessageType::kNotification: {
        Notification n;
        (void)DecodeNotification(message, &n);
        break;
      }
      case MessageType::kRouteRefresh: {
        RouteRefresh rr;
        (void)DecodeRouteRefresh(message, &rr);
        break;
      }
      default:
        break;
    }
  }
  if (r == MessageFramer::Result::kError) {
    sluice::bgp::Check(error.code == 1, "framer errors are header errors");
    // Still feed the raw bytes to the UPDATE decoder: it must cope with any length fields.
    UpdateDecoder decoder(p, store);
    UpdateMessage u;
    decoder.Decode(stream, &u);
    if (stream.size() > 19) decoder.DecodeBody(stream.subspan(19), &u);
  }
  return 0;
}
