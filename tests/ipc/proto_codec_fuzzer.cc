// libFuzzer target: the proto codec from the protobuf side (xrl_fuzzer covers it from the XRL
// text side). The input is a serialized message of every field type (a reply as a daemon could
// send it). Whatever protobuf accepts, the codec turns into arguments or an error, never a crash;
// the arguments print as text that parses back, converts back into an equal message, and prints
// the same again. A message of a dynamic pool (as the sluice CLI builds them) converts alike:
// its text gives back the same message. (Compared as messages, not as text: a map's entries
// come in hash order, which differs between two maps holding the same keys.)
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/message_differencer.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "ipc/proto_codec.h"
#include "ipc/xrl_args.h"
#include "tests/ipc/proto/codec_test.pb.h"

namespace {

using google::protobuf::Message;

void Check(bool ok, const char* what, const std::string& text) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken: %s\n  %s\n", what, text.c_str());
  std::abort();
}

// AllTypes from a pool built from its files' descriptors: what the CLI has for a method it was
// not compiled with.
struct DynamicAllTypes {
  DynamicAllTypes() {
    for (const auto* file : {sluice::types::v1::IPv4Address::descriptor()->file(),
                             sluice::codec_test::v1::AllTypes::descriptor()->file()}) {
      google::protobuf::FileDescriptorProto proto;
      file->CopyTo(&proto);
      pool.BuildFile(proto);
    }
    prototype = factory.GetPrototype(pool.FindMessageTypeByName("sluice.codec_test.v1.AllTypes"));
    google::protobuf::SetLogHandler(nullptr);  // no line per string that is not UTF-8
  }
  google::protobuf::DescriptorPool pool;
  google::protobuf::DynamicMessageFactory factory{&pool};
  const Message* prototype = nullptr;
};

// Clears the host bits of an IPv4Prefix or IPv6Prefix message (types.proto says they are zero;
// the codec reads the prefix, which has none). A length out of range is left alone: the codec
// refuses it.
void MaskPrefix(Message* m) {
  const google::protobuf::Descriptor* d = m->GetDescriptor();
  const google::protobuf::Reflection* r = m->GetReflection();
  const bool v4 = d->full_name() == "sluice.types.v1.IPv4Prefix";
  const uint32_t length = r->GetUInt32(*m, d->FindFieldByName("length"));
  if (length > (v4 ? 32u : 128u)) return;
  auto mask = [](uint64_t value, int bits, int keep) {
    if (keep <= 0) return uint64_t{0};
    return keep >= bits ? value : value & ~((uint64_t{1} << (bits - keep)) - 1);
  };
  const int n = static_cast<int>(length);
  if (v4) {
    const auto* f = d->FindFieldByName("address");
    r->SetUInt32(m, f, static_cast<uint32_t>(mask(r->GetUInt32(*m, f), 32, n)));
    return;
  }
  const auto* hi = d->FindFieldByName("hi");
  const auto* lo = d->FindFieldByName("lo");
  r->SetUInt64(m, hi, mask(r->GetUInt64(*m, hi), 64, n));
  r->SetUInt64(m, lo, mask(r->GetUInt64(*m, lo), 64, n - 64));
}

// What the arguments cannot say, taken out of a message (recursively): fields of no known name,
// an IPAddress or IPPrefix set to a message with no family (it prints as absent), host bits, the
// bits of a MAC address above its 48.
void Normalise(Message* m) {
  const std::string& name = m->GetDescriptor()->full_name();
  if (name == "sluice.types.v1.IPv4Prefix" || name == "sluice.types.v1.IPv6Prefix") {
    MaskPrefix(m);
  }
  if (name == "sluice.types.v1.MacAddress") {  // the low 48 bits, as types.proto says
    const auto* f = m->GetDescriptor()->FindFieldByName("address");
    m->GetReflection()->SetUInt64(m, f, m->GetReflection()->GetUInt64(*m, f) & 0xffffffffffffu);
  }
  m->DiscardUnknownFields();
  const google::protobuf::Reflection* r = m->GetReflection();
  std::vector<const google::protobuf::FieldDescriptor*> fields;
  r->ListFields(*m, &fields);
  for (const google::protobuf::FieldDescriptor* f : fields) {
    if (f->cpp_type() != google::protobuf::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(*m, f); ++i) Normalise(r->MutableRepeatedMessage(m, f, i));
      continue;
    }
    Message* sub = r->MutableMessage(m, f);
    Normalise(sub);
    const std::string& type = f->message_type()->full_name();
    std::vector<const google::protobuf::FieldDescriptor*> set;
    sub->GetReflection()->ListFields(*sub, &set);
    if ((type == "sluice.types.v1.IPAddress" || type == "sluice.types.v1.IPPrefix") &&
        set.empty()) {
      r->ClearField(m, f);
    }
  }
}

// A copy through the wire form: a map's entries then hold each key once (a message filled by
// reflection, or a dynamic message parsed, may list a key twice; the last one counts).
std::unique_ptr<Message> Canonical(const Message& m) {
  std::unique_ptr<Message> copy(m.New());
  copy->ParseFromString(m.SerializeAsString());
  return copy;
}

// "" when the messages are equal (NaN equal to NaN), else what differs.
std::string Differences(const Message& a, const Message& b) {
  google::protobuf::util::DefaultFieldComparator comparator;
  comparator.set_treat_nan_as_equal(true);
  google::protobuf::util::MessageDifferencer differencer;
  differencer.set_field_comparator(&comparator);
  std::string report;
  differencer.ReportDifferencesToString(&report);
  return differencer.Compare(*Canonical(a), *Canonical(b)) ? "" : report;
}

void CheckEqual(const Message& a, const Message& b, const char* what, const std::string& text) {
  const std::string differences = Differences(a, b);
  Check(differences.empty(), what, text + "\n" + differences);
}

// The message `text` converts into (of the type of `like`); aborts when it does not.
std::unique_ptr<Message> FromText(const std::string& text, const Message& like) {
  auto parsed = sluice::ipc::XrlArgs::Parse(text);
  Check(parsed.ok(), "printed arguments parse", text);
  Check(parsed->ToString() == text, "parsed arguments print the same", text);
  std::unique_ptr<Message> back(like.New());
  absl::Status status = sluice::ipc::ArgsToMessage(*parsed, back.get());
  Check(status.ok(), "printed arguments convert back into a message", text);
  return back;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const DynamicAllTypes* dynamic = new DynamicAllTypes();  // never freed
  sluice::codec_test::v1::AllTypes message;
  if (!message.ParseFromArray(data, static_cast<int>(size))) return 0;
  Normalise(&message);
  // The same message in a dynamic pool (parsed from the generated one's wire form: how protobuf's
  // two implementations keep odd wire input, e.g. map entries without a key, is theirs to say).
  std::unique_ptr<Message> dyn(dynamic->prototype->New());
  Check(dyn->ParseFromString(message.SerializeAsString()), "the dynamic message parses", "");
  auto args = sluice::ipc::MessageToArgs(message);
  auto dyn_args = sluice::ipc::MessageToArgs(*dyn);
  Check(args.ok() == dyn_args.ok(), "generated and dynamic messages convert alike",
        args.ok() ? args->ToString() : std::string(args.status().message()));
  if (!args.ok()) return 0;  // a prefix length out of range, an address without a family, ...
  const std::string text = args->ToString();
  const std::unique_ptr<Message> back = FromText(text, message);
  CheckEqual(*back, message, "the text converts back into the same message", text);
  auto again = sluice::ipc::MessageToArgs(*back);
  Check(again.ok() && again->ToString() == text, "the converted message prints the same", text);
  const std::string dyn_text = dyn_args->ToString();
  CheckEqual(*FromText(dyn_text, message), message, "the dynamic message's text gives it back",
             dyn_text);
  CheckEqual(*FromText(text, *dyn), *dyn, "the text converts into a dynamic message", text);
  return 0;
}
