#include "bgp/wire/open_message.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::bgp {
namespace {

constexpr uint8_t kParamCapabilities = 2;  // RFC 5492 §4

absl::Status Fail(Notification* error, uint8_t code, uint8_t subcode, std::vector<uint8_t> data,
                  std::string reason) {
  *error = Notification{code, subcode, std::move(data)};
  return absl::InvalidArgumentError(std::move(reason));
}

absl::Status OpenFail(Notification* error, uint8_t subcode, std::string reason) {
  return Fail(error, uint8_t(ErrorCode::kOpenMessage), subcode, {}, std::move(reason));
}

void AppendCapability(CapabilityCode code, Bytes value, ByteWriter& w) {
  w.U8(uint8_t(code));
  w.U8(uint8_t(value.size()));
  w.Append(value);
}

// RFC 4724 §3 value: flags and restart time, then 4 octets per family; nullopt when its length
// is not 2 + 4k.
std::optional<GracefulRestart> ParseGracefulRestart(Bytes value) {
  if (value.size() < 2 || (value.size() - 2) % 4 != 0) return std::nullopt;
  GracefulRestart gr;
  const uint16_t flags_time = LoadU16(value.data());
  gr.restart_state = (flags_time & kGrRestartStateFlag) != 0;
  gr.notification = (flags_time & kGrNotificationFlag) != 0;
  gr.restart_time = flags_time & kGrMaxRestartTime;
  for (size_t i = 2; i < value.size(); i += 4) {
    const uint16_t afi = LoadU16(value.data() + i);
    const uint8_t safi = value[i + 2];
    if (AfiSafi::Supported(afi, safi)) {
      gr.families.push_back(GracefulRestart::Family{AfiSafi{Afi(afi), Safi(safi)},
                                                    (value[i + 3] & kGrForwardingFlag) != 0});
    }
  }
  return gr;
}

void AppendGracefulRestart(const GracefulRestart& gr, ByteWriter& c) {
  std::vector<uint8_t> v;
  ByteWriter g(&v);
  g.U16(uint16_t((gr.restart_state ? kGrRestartStateFlag : 0) |
                 (gr.notification ? kGrNotificationFlag : 0) | gr.restart_time));
  for (const auto& f : gr.families) {
    g.U16(uint16_t(f.family.afi));
    g.U8(uint8_t(f.family.safi));
    g.U8(f.forwarding_preserved ? kGrForwardingFlag : 0);
  }
  AppendCapability(CapabilityCode::kGracefulRestart, v, c);
}

// Parses the capabilities of one Capabilities optional parameter.
absl::Status ParseCapabilities(Bytes data, Capabilities* caps, Notification* error) {
  ByteReader r(data);
  while (!r.empty()) {
    uint8_t code, len;
    Bytes value;
    if (!r.ReadU8(&code) || !r.ReadU8(&len) || !r.ReadBytes(len, &value)) {
      return OpenFail(error, open_error::kUnspecific, "OPEN: capability overruns its parameter");
    }
    auto malformed = [&](std::string_view what) {
      return OpenFail(error, open_error::kUnspecific,
                      absl::StrFormat("OPEN: malformed %s capability (%d octets)", what, len));
    };
    switch (CapabilityCode(code)) {
      case CapabilityCode::kMultiprotocol: {
        if (len != 4) return malformed("multiprotocol");
        const uint16_t afi = LoadU16(value.data());
        const uint8_t safi = value[3];
        if (AfiSafi::Supported(afi, safi)) {
          AfiSafi f{Afi(afi), Safi(safi)};
          if (std::find(caps->multiprotocol.begin(), caps->multiprotocol.end(), f) ==
              caps->multiprotocol.end()) {
            caps->multiprotocol.push_back(f);
          }
        } else {
          caps->unknown.push_back(RawCapability{code, {value.begin(), value.end()}});
        }
        break;
      }
      case CapabilityCode::kRouteRefresh:
        caps->route_refresh = true;
        break;
      case CapabilityCode::kEnhancedRouteRefresh:
        caps->enhanced_route_refresh = true;
        break;
      case CapabilityCode::kExtendedMessage:
        caps->extended_message = true;
        break;
      case CapabilityCode::kFourOctetAs:
        if (len != 4) return malformed("4-octet AS");
        caps->four_octet_as = LoadU32(value.data());
        break;
      case CapabilityCode::kAddPath:
        if (len % 4 != 0) return malformed("ADD-PATH");
        for (size_t i = 0; i < len; i += 4) {
          const uint16_t afi = LoadU16(value.data() + i);
          const uint8_t safi = value[i + 2];
          const uint8_t sr = value[i + 3];
          if (sr < 1 || sr > 3) return malformed("ADD-PATH");
          if (AfiSafi::Supported(afi, safi)) {
            caps->add_path.push_back(AddPathFamily{AfiSafi{Afi(afi), Safi(safi)}, sr});
          }
        }
        break;
      case CapabilityCode::kGracefulRestart: {
        std::optional<GracefulRestart> gr = ParseGracefulRestart(value);
        if (!gr) return malformed("graceful restart");
        caps->graceful_restart = std::move(gr);  // the last instance counts (RFC 4724 §3)
        break;
      }
      default:
        caps->unknown.push_back(RawCapability{code, {value.begin(), value.end()}});
        break;
    }
  }
  return absl::OkStatus();
}

}  // namespace

const GracefulRestart::Family* GracefulRestart::Find(AfiSafi family) const {
  for (const Family& f : families) {
    if (f.family == family) return &f;
  }
  return nullptr;
}

std::string GracefulRestart::ToString() const {
  std::string s = absl::StrCat("restart-time ", restart_time);
  if (restart_state) s += " R";
  if (notification) s += " N";
  for (const Family& f : families) {
    absl::StrAppend(&s, " ", f.family.ToString(), f.forwarding_preserved ? "/F" : "");
  }
  return s;
}

OpenMessage OpenMessage::Make(uint32_t as, uint16_t hold_time, net::IPv4Address id,
                              Capabilities capabilities) {
  OpenMessage open;
  open.my_as = uint16_t(as > 0xffff ? kAsTrans : as);
  open.hold_time = hold_time;
  open.bgp_identifier = id;
  open.capabilities = std::move(capabilities);
  open.capabilities.four_octet_as = as;
  return open;
}

std::string OpenMessage::ToString() const {
  std::string s = absl::StrFormat("OPEN version %d AS %d hold %d id %s", version, AsNumber(),
                                  hold_time, bgp_identifier.ToString());
  const Capabilities& c = capabilities;
  for (const AfiSafi& f : c.multiprotocol) absl::StrAppend(&s, " mp:", f.ToString());
  if (c.route_refresh) s += " route-refresh";
  if (c.enhanced_route_refresh) s += " enhanced-route-refresh";
  if (c.extended_message) s += " extended-message";
  if (c.four_octet_as) s += " as4";
  for (const AddPathFamily& a : c.add_path) {
    absl::StrAppend(&s, " add-path:", a.family.ToString(), "/", a.send_receive);
  }
  if (c.graceful_restart) {
    absl::StrAppend(&s, " graceful-restart(", c.graceful_restart->ToString(), ")");
  }
  for (const RawCapability& u : c.unknown) absl::StrAppend(&s, " cap", u.code);
  return s;
}

absl::Status AppendOpen(const OpenMessage& open, std::vector<uint8_t>* out) {
  std::vector<uint8_t> caps;
  ByteWriter c(&caps);
  const Capabilities& k = open.capabilities;
  for (const AfiSafi& f : k.multiprotocol) {
    uint8_t v[4];
    StoreU16(v, uint16_t(f.afi));
    v[2] = 0;
    v[3] = uint8_t(f.safi);
    AppendCapability(CapabilityCode::kMultiprotocol, Bytes(v, 4), c);
  }
  if (k.route_refresh) AppendCapability(CapabilityCode::kRouteRefresh, {}, c);
  if (k.enhanced_route_refresh) AppendCapability(CapabilityCode::kEnhancedRouteRefresh, {}, c);
  if (k.extended_message) AppendCapability(CapabilityCode::kExtendedMessage, {}, c);
  if (k.graceful_restart) {
    if (k.graceful_restart->restart_time > kGrMaxRestartTime) {
      return absl::InvalidArgumentError(
          absl::StrFormat("OPEN: graceful restart time %d s (at most %d)",
                          k.graceful_restart->restart_time, kGrMaxRestartTime));
    }
    AppendGracefulRestart(*k.graceful_restart, c);
  }
  if (k.four_octet_as) {
    uint8_t v[4];
    StoreU32(v, *k.four_octet_as);
    AppendCapability(CapabilityCode::kFourOctetAs, Bytes(v, 4), c);
  }
  if (!k.add_path.empty()) {
    std::vector<uint8_t> v;
    ByteWriter a(&v);
    for (const AddPathFamily& f : k.add_path) {
      a.U16(uint16_t(f.family.afi));
      a.U8(uint8_t(f.family.safi));
      a.U8(f.send_receive);
    }
    AppendCapability(CapabilityCode::kAddPath, v, c);
  }
  for (const RawCapability& u : k.unknown) {
    c.U8(u.code);
    c.U8(uint8_t(u.value.size()));
    c.Append(u.value);
  }
  if (caps.size() > 253) {
    return absl::InvalidArgumentError(
        absl::StrFormat("OPEN: %d octets of capabilities do not fit one parameter", caps.size()));
  }
  ByteWriter w(out);
  const size_t params_len = caps.empty() ? 0 : caps.size() + 2;
  AppendHeader(MessageType::kOpen, 10 + params_len, w);
  w.U8(open.version);
  w.U16(open.my_as);
  w.U16(open.hold_time);
  w.U32(open.bgp_identifier.value());
  w.U8(uint8_t(params_len));
  if (!caps.empty()) {
    w.U8(kParamCapabilities);
    w.U8(uint8_t(caps.size()));
    w.Append(caps);
  }
  return absl::OkStatus();
}

absl::Status DecodeOpen(Bytes message, OpenMessage* out, Notification* error) {
  *out = OpenMessage();
  if (message.size() < size_t(kHeaderSize) + 10) {
    uint8_t len[2];
    StoreU16(len, uint16_t(message.size()));
    return Fail(error, uint8_t(ErrorCode::kMessageHeader), header_error::kBadMessageLength,
                {len, len + 2}, absl::StrFormat("OPEN of %d octets (at least 29)", message.size()));
  }
  ByteReader r(message.subspan(kHeaderSize));
  uint32_t id;
  uint8_t params_len;
  r.ReadU8(&out->version);
  r.ReadU16(&out->my_as);
  r.ReadU16(&out->hold_time);
  r.ReadU32(&id);
  r.ReadU8(&params_len);
  out->bgp_identifier = net::IPv4Address(id);
  if (out->version != 4) {
    return Fail(error, uint8_t(ErrorCode::kOpenMessage), open_error::kUnsupportedVersion, {0, 4},
                absl::StrFormat("OPEN: version %d (4 supported)", out->version));
  }
  if (out->hold_time == 1 || out->hold_time == 2) {
    return OpenFail(error, open_error::kUnacceptableHoldTime,
                    absl::StrFormat("OPEN: hold time %d s (0 or at least 3)", out->hold_time));
  }
  if (id == 0) return OpenFail(error, open_error::kBadBgpIdentifier, "OPEN: BGP identifier 0");
  if (out->my_as == 0) return OpenFail(error, open_error::kBadPeerAs, "OPEN: AS 0 (RFC 7607)");

  // RFC 9072: an Optional Parameters Length of 255 with a first parameter type of 255 announces
  // 2-octet lengths.
  bool extended = false;
  size_t total = params_len;
  if (params_len == 255 && r.remaining() >= 3 && *r.current() == 255) {
    uint8_t marker;
    uint16_t ext_len;
    r.ReadU8(&marker);
    r.ReadU16(&ext_len);
    extended = true;
    total = ext_len;
  }
  if (r.remaining() != total) {
    return OpenFail(error, open_error::kUnspecific,
                    absl::StrFormat("OPEN: optional parameters length %d, %d octets follow", total,
                                    r.remaining()));
  }
  while (!r.empty()) {
    uint8_t type;
    uint16_t len = 0;
    Bytes value;
    bool ok = r.ReadU8(&type);
    if (extended) {
      ok = ok && r.ReadU16(&len);
    } else {
      uint8_t l8 = 0;
      ok = ok && r.ReadU8(&l8);
      len = l8;
    }
    if (!ok || !r.ReadBytes(len, &value)) {
      return OpenFail(error, open_error::kUnspecific,
                      "OPEN: optional parameter overruns the message");
    }
    if (type != kParamCapabilities) {
      return OpenFail(error, open_error::kUnsupportedOptionalParameter,
                      absl::StrFormat("OPEN: unsupported optional parameter type %d", type));
    }
    absl::Status st = ParseCapabilities(value, &out->capabilities, error);
    if (!st.ok()) return st;
  }
  if (out->capabilities.four_octet_as && *out->capabilities.four_octet_as == 0) {
    return OpenFail(error, open_error::kBadPeerAs, "OPEN: 4-octet AS capability with AS 0");
  }
  return absl::OkStatus();
}

Negotiated Negotiate(const OpenMessage& local, const OpenMessage& remote, bool external) {
  Negotiated n;
  const Capabilities& l = local.capabilities;
  const Capabilities& r = remote.capabilities;
  auto families_of = [](const Capabilities& c) {
    AfiSafiSet s;
    if (c.multiprotocol.empty()) s.Add(kIPv4Unicast);  // RFC 4760 §8
    for (const AfiSafi& f : c.multiprotocol) s.Add(f);
    return s;
  };
  SessionParams& p = n.params;
  p.families = families_of(l).Intersect(families_of(r));
  p.four_octet_as = l.four_octet_as.has_value() && r.four_octet_as.has_value();
  p.extended_message = l.extended_message && r.extended_message;
  p.external = external;
  auto add_path_of = [](const Capabilities& c, AfiSafi f) -> uint8_t {
    for (const AddPathFamily& a : c.add_path) {
      if (a.family == f) return a.send_receive;
    }
    return 0;
  };
  for (int i = 0; i < AfiSafi::kCount; ++i) {
    const AfiSafi f = AfiSafi::FromIndex(i);
    if (!p.families.Has(f)) continue;
    const uint8_t mine = add_path_of(l, f), theirs = add_path_of(r, f);
    if ((mine & kAddPathReceive) && (theirs & kAddPathSend)) p.add_path_receive.Add(f);
    if ((mine & kAddPathSend) && (theirs & kAddPathReceive)) p.add_path_send.Add(f);
  }
  n.hold_time = std::min(local.hold_time, remote.hold_time);
  n.keepalive_time = uint16_t(n.hold_time / 3);
  n.peer_as = remote.AsNumber();
  n.route_refresh = l.route_refresh && r.route_refresh;
  n.enhanced_route_refresh = l.enhanced_route_refresh && r.enhanced_route_refresh;
  n.peer_graceful_restart = r.graceful_restart;
  return n;
}

}  // namespace sluice::bgp
