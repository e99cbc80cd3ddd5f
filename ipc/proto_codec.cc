#include "ipc/proto_codec.h"

#include <string>

#include "absl/strings/numbers.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "google/protobuf/reflection.h"

namespace sluice::ipc {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Messages of types.proto that stand for one atom.
enum class WellKnown { kNone, kIPv4, kIPv6, kIP, kIPv4Net, kIPv6Net, kNet, kMac };

WellKnown Classify(const Descriptor* d) {
  const std::string& name = d->full_name();
  if (name.rfind("sluice.types.v1.", 0) != 0) return WellKnown::kNone;
  std::string_view short_name = std::string_view(name).substr(16);
  if (short_name == "IPv4Address") return WellKnown::kIPv4;
  if (short_name == "IPv6Address") return WellKnown::kIPv6;
  if (short_name == "IPAddress") return WellKnown::kIP;
  if (short_name == "IPv4Prefix") return WellKnown::kIPv4Net;
  if (short_name == "IPv6Prefix") return WellKnown::kIPv6Net;
  if (short_name == "IPPrefix") return WellKnown::kNet;
  if (short_name == "MacAddress") return WellKnown::kMac;
  return WellKnown::kNone;
}

// Field access by name inside the types.proto messages (works for dynamic descriptors too).
const FieldDescriptor* F(const Message& m, const char* name) {
  return m.GetDescriptor()->FindFieldByName(name);
}
uint32_t GetU32(const Message& m, const char* name) {
  return m.GetReflection()->GetUInt32(m, F(m, name));
}
uint64_t GetU64(const Message& m, const char* name) {
  return m.GetReflection()->GetUInt64(m, F(m, name));
}
void SetU32(Message* m, const char* name, uint32_t v) {
  m->GetReflection()->SetUInt32(m, F(*m, name), v);
}
void SetU64(Message* m, const char* name, uint64_t v) {
  m->GetReflection()->SetUInt64(m, F(*m, name), v);
}

void SetIPv4(Message* m, net::IPv4Address a) { SetU32(m, "address", a.value()); }
void SetIPv6(Message* m, net::IPv6Address a) {
  SetU64(m, "hi", a.hi());
  SetU64(m, "lo", a.lo());
}
void SetNet(Message* m, const net::Prefix& p) {
  if (p.is_v4()) {
    SetU32(m, "address", p.v4().value());
  } else {
    SetU64(m, "hi", p.v6().hi());
    SetU64(m, "lo", p.v6().lo());
  }
  SetU32(m, "length", static_cast<uint32_t>(p.length()));
}
Message* MutableSub(Message* m, const char* name) {
  return m->GetReflection()->MutableMessage(m, F(*m, name));
}
const Message* GetSubIfSet(const Message& m, const char* name) {
  const FieldDescriptor* f = F(m, name);
  if (!m.GetReflection()->HasField(m, f)) return nullptr;
  return &m.GetReflection()->GetMessage(m, f);
}

// Writes `value` (already type-checked) into a message of well-known kind `kind`.
void SetWellKnown(WellKnown kind, const XrlValue& value, Message* m) {
  switch (kind) {
    case WellKnown::kIPv4:
      SetIPv4(m, value.ipv4());
      return;
    case WellKnown::kIPv6:
      SetIPv6(m, value.ipv6());
      return;
    case WellKnown::kIP: {
      net::IPAddress a = value.type() == AtomType::kIPv4   ? net::IPAddress(value.ipv4())
                         : value.type() == AtomType::kIPv6 ? net::IPAddress(value.ipv6())
                                                           : value.ipvx();
      if (a.is_v4()) {
        SetIPv4(MutableSub(m, "v4"), a.v4());
      } else {
        SetIPv6(MutableSub(m, "v6"), a.v6());
      }
      return;
    }
    case WellKnown::kIPv4Net:
      SetNet(m, value.ipv4net());
      return;
    case WellKnown::kIPv6Net:
      SetNet(m, value.ipv6net());
      return;
    case WellKnown::kNet: {
      const net::Prefix& p = value.type() == AtomType::kIPv4Net   ? value.ipv4net()
                             : value.type() == AtomType::kIPv6Net ? value.ipv6net()
                                                                  : value.ipvxnet();
      SetNet(MutableSub(m, p.is_v4() ? "v4" : "v6"), p);
      return;
    }
    case WellKnown::kMac:
      SetU64(m, "address", value.mac().value());
      return;
    case WellKnown::kNone:
      return;
  }
}

absl::StatusOr<net::Prefix> ReadNet(const Message& m, bool v4) {
  uint32_t length = GetU32(m, "length");
  if (length > (v4 ? 32u : 128u)) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s has prefix length %d", m.GetDescriptor()->full_name(), length));
  }
  if (v4) return net::Prefix(net::IPv4Address(GetU32(m, "address")), static_cast<int>(length));
  return net::Prefix(net::IPv6Address(GetU64(m, "hi"), GetU64(m, "lo")), static_cast<int>(length));
}

// The atom for a well-known message, or nullopt for an IPAddress/IPPrefix with no family set.
absl::StatusOr<std::optional<XrlValue>> ReadWellKnown(WellKnown kind, const Message& m) {
  switch (kind) {
    case WellKnown::kIPv4:
      return XrlValue::IPv4(net::IPv4Address(GetU32(m, "address")));
    case WellKnown::kIPv6:
      return XrlValue::IPv6(net::IPv6Address(GetU64(m, "hi"), GetU64(m, "lo")));
    case WellKnown::kIP:
      if (const Message* v4 = GetSubIfSet(m, "v4")) {
        return XrlValue::IPvX(net::IPv4Address(GetU32(*v4, "address")));
      }
      if (const Message* v6 = GetSubIfSet(m, "v6")) {
        return XrlValue::IPvX(net::IPv6Address(GetU64(*v6, "hi"), GetU64(*v6, "lo")));
      }
      return std::optional<XrlValue>();
    case WellKnown::kIPv4Net:
    case WellKnown::kIPv6Net: {
      ASSIGN_OR_RETURN(net::Prefix p, ReadNet(m, kind == WellKnown::kIPv4Net));
      return XrlValue::Net(p);
    }
    case WellKnown::kNet:
      if (const Message* v4 = GetSubIfSet(m, "v4")) {
        ASSIGN_OR_RETURN(net::Prefix p, ReadNet(*v4, true));
        return XrlValue::IPvXNet(p);
      }
      if (const Message* v6 = GetSubIfSet(m, "v6")) {
        ASSIGN_OR_RETURN(net::Prefix p, ReadNet(*v6, false));
        return XrlValue::IPvXNet(p);
      }
      return std::optional<XrlValue>();
    case WellKnown::kMac:
      return XrlValue::Mac(MacAddress(GetU64(m, "address")));
    case WellKnown::kNone:
      break;
  }
  return absl::InternalError("not a well-known type");
}

AtomType WellKnownAtom(WellKnown kind) {
  switch (kind) {
    case WellKnown::kIPv4:
      return AtomType::kIPv4;
    case WellKnown::kIP:
      return AtomType::kIPvX;
    case WellKnown::kIPv6:
      return AtomType::kIPv6;
    case WellKnown::kIPv4Net:
      return AtomType::kIPv4Net;
    case WellKnown::kNet:
      return AtomType::kIPvXNet;
    case WellKnown::kIPv6Net:
      return AtomType::kIPv6Net;
    case WellKnown::kMac:
      return AtomType::kMac;
    case WellKnown::kNone:
      break;
  }
  return AtomType::kMsg;
}

AtomType ScalarAtom(const FieldDescriptor& field) {
  switch (field.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return AtomType::kI32;
    case FieldDescriptor::CPPTYPE_UINT32:
      return AtomType::kU32;
    case FieldDescriptor::CPPTYPE_INT64:
      return AtomType::kI64;
    case FieldDescriptor::CPPTYPE_UINT64:
      return AtomType::kU64;
    case FieldDescriptor::CPPTYPE_BOOL:
      return AtomType::kBool;
    case FieldDescriptor::CPPTYPE_DOUBLE:
    case FieldDescriptor::CPPTYPE_FLOAT:
      return AtomType::kFp64;
    case FieldDescriptor::CPPTYPE_STRING:
      return field.type() == FieldDescriptor::TYPE_BYTES ? AtomType::kBinary : AtomType::kTxt;
    case FieldDescriptor::CPPTYPE_ENUM:
      return AtomType::kTxt;
    case FieldDescriptor::CPPTYPE_MESSAGE:
      return WellKnownAtom(Classify(field.message_type()));
  }
  return AtomType::kTxt;
}

// True when an atom of type `given` may set `field`.
bool Accepts(const FieldDescriptor& field, AtomType given) {
  AtomType want = ScalarAtom(field);
  if (given == want) return true;
  if (field.cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) return false;
  WellKnown kind = Classify(field.message_type());
  return (kind == WellKnown::kIP && (given == AtomType::kIPv4 || given == AtomType::kIPv6)) ||
         (kind == WellKnown::kNet && (given == AtomType::kIPv4Net || given == AtomType::kIPv6Net));
}

std::string FieldNames(const Descriptor& d) {
  std::vector<std::string> names;
  for (int i = 0; i < d.field_count(); ++i) names.push_back(d.field(i)->name());
  return names.empty() ? "none" : absl::StrJoin(names, ", ");
}

absl::Status TooDeep(const Descriptor& desc) {
  return absl::InvalidArgumentError(
      absl::StrFormat("%s: nesting too deep (more than %d nested messages)", desc.full_name(),
                      XrlArgs::kMaxNesting));
}

class ToMessage {
 public:
  // `depth`: how many msg values enclose `args` (0 for an XRL's own arguments).
  absl::Status Fill(const XrlArgs& args, Message* message, const std::string& path, int depth) {
    const Descriptor& desc = *message->GetDescriptor();
    if (depth > XrlArgs::kMaxNesting) return TooDeep(desc);
    for (size_t i = 0; i < args.size(); ++i) {
      const XrlAtom& atom = args[i];
      std::string where =
          path.empty() ? absl::StrFormat("argument %d \"%s\"", static_cast<int>(i) + 1, atom.name())
                       : absl::StrFormat("argument \"%s.%s\"", path, atom.name());
      if (atom.column() > 0) absl::StrAppendFormat(&where, " (column %d)", atom.column());
      std::string child_path = path.empty() ? atom.name() : path + "." + atom.name();
      const FieldDescriptor* field = desc.FindFieldByName(atom.name());
      if (field == nullptr) {
        return absl::InvalidArgumentError(absl::StrFormat("%s: no field %s in %s (fields: %s)",
                                                          where, atom.name(), desc.full_name(),
                                                          FieldNames(desc)));
      }
      if (atom.is_list() != field->is_repeated() || !Accepts(*field, atom.type().atom)) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s: field %s of %s is %s, not %s", where, field->name(),
                            desc.full_name(), DescribeType(*field), atom.type().ToString()));
      }
      if (!atom.is_list()) {
        RETURN_IF_ERROR(Set(*field, atom.value(), message, where, child_path, depth));
        continue;
      }
      for (size_t j = 0; j < atom.list().size(); ++j) {
        RETURN_IF_ERROR(Set(*field, atom.list()[j], message, where,
                            absl::StrFormat("%s[%d]", child_path, static_cast<int>(j)), depth));
      }
    }
    return absl::OkStatus();
  }

 private:
  static std::string DescribeType(const FieldDescriptor& field) {
    std::string atom(AtomTypeName(ScalarAtom(field)));
    return field.is_repeated() ? absl::StrFormat("list<%s>", atom) : atom;
  }

  // Sets (or, for a repeated field, appends) one value.
  absl::Status Set(const FieldDescriptor& field, const XrlValue& value, Message* m,
                   const std::string& where, const std::string& path, int depth) {
    const Reflection* r = m->GetReflection();
    bool rep = field.is_repeated();
    switch (field.cpp_type()) {
      case FieldDescriptor::CPPTYPE_INT32:
        rep ? r->AddInt32(m, &field, value.i32()) : r->SetInt32(m, &field, value.i32());
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_UINT32:
        rep ? r->AddUInt32(m, &field, value.u32()) : r->SetUInt32(m, &field, value.u32());
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_INT64:
        rep ? r->AddInt64(m, &field, value.i64()) : r->SetInt64(m, &field, value.i64());
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_UINT64:
        rep ? r->AddUInt64(m, &field, value.u64()) : r->SetUInt64(m, &field, value.u64());
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_BOOL:
        rep ? r->AddBool(m, &field, value.boolean()) : r->SetBool(m, &field, value.boolean());
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_DOUBLE:
        rep ? r->AddDouble(m, &field, value.fp64()) : r->SetDouble(m, &field, value.fp64());
        return absl::OkStatus();
      case FieldDescriptor::CPPTYPE_FLOAT: {
        auto f = static_cast<float>(value.fp64());
        rep ? r->AddFloat(m, &field, f) : r->SetFloat(m, &field, f);
        return absl::OkStatus();
      }
      case FieldDescriptor::CPPTYPE_STRING: {
        const std::string& s = value.type() == AtomType::kBinary ? value.binary() : value.txt();
        rep ? r->AddString(m, &field, s) : r->SetString(m, &field, s);
        return absl::OkStatus();
      }
      case FieldDescriptor::CPPTYPE_ENUM:
        return SetEnum(field, value.txt(), m, where);
      case FieldDescriptor::CPPTYPE_MESSAGE: {
        Message* sub = rep ? r->AddMessage(m, &field) : r->MutableMessage(m, &field);
        WellKnown kind = Classify(field.message_type());
        if (kind != WellKnown::kNone) {
          SetWellKnown(kind, value, sub);
          return absl::OkStatus();
        }
        return Fill(value.msg(), sub, path, depth + 1);
      }
    }
    return absl::InternalError("unknown field type");
  }

  static absl::Status SetEnum(const FieldDescriptor& field, const std::string& text, Message* m,
                              const std::string& where) {
    const Reflection* r = m->GetReflection();
    const auto* type = field.enum_type();
    int number;
    if (const auto* v = type->FindValueByName(text)) {
      number = v->number();
    } else if (absl::SimpleAtoi(text, &number) &&
               (type->file()->syntax() == google::protobuf::FileDescriptor::SYNTAX_PROTO3 ||
                type->FindValueByNumber(number) != nullptr)) {
      // A number: any value for an open (proto3) enum, a known one for a closed enum.
    } else {
      std::vector<std::string> names;
      for (int i = 0; i < type->value_count(); ++i) names.push_back(type->value(i)->name());
      return absl::InvalidArgumentError(absl::StrFormat("%s: \"%s\" is not a value of %s (%s)",
                                                        where, text, type->full_name(),
                                                        absl::StrJoin(names, ", ")));
    }
    if (field.is_repeated()) {
      r->AddEnumValue(m, &field, number);
    } else {
      r->SetEnumValue(m, &field, number);
    }
    return absl::OkStatus();
  }
};

// One field's element (index < 0: a singular field) as an atom value, or nullopt when an
// IPAddress/IPPrefix has no family set.
absl::StatusOr<XrlArgs> ReadArgs(const Message& message, int depth);

absl::StatusOr<std::optional<XrlValue>> ReadValue(const Message& m, const FieldDescriptor& f,
                                                  int index, int depth) {
  const Reflection* r = m.GetReflection();
  bool rep = index >= 0;
  switch (f.cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return XrlValue::I32(rep ? r->GetRepeatedInt32(m, &f, index) : r->GetInt32(m, &f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return XrlValue::U32(rep ? r->GetRepeatedUInt32(m, &f, index) : r->GetUInt32(m, &f));
    case FieldDescriptor::CPPTYPE_INT64:
      return XrlValue::I64(rep ? r->GetRepeatedInt64(m, &f, index) : r->GetInt64(m, &f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return XrlValue::U64(rep ? r->GetRepeatedUInt64(m, &f, index) : r->GetUInt64(m, &f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return XrlValue::Bool(rep ? r->GetRepeatedBool(m, &f, index) : r->GetBool(m, &f));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return XrlValue::Fp64(rep ? r->GetRepeatedDouble(m, &f, index) : r->GetDouble(m, &f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return XrlValue::Fp64(rep ? r->GetRepeatedFloat(m, &f, index) : r->GetFloat(m, &f));
    case FieldDescriptor::CPPTYPE_STRING: {
      std::string s = rep ? r->GetRepeatedString(m, &f, index) : r->GetString(m, &f);
      if (f.type() == FieldDescriptor::TYPE_BYTES) return XrlValue::Binary(std::move(s));
      return XrlValue::Txt(std::move(s));
    }
    case FieldDescriptor::CPPTYPE_ENUM: {
      int number = rep ? r->GetRepeatedEnumValue(m, &f, index) : r->GetEnumValue(m, &f);
      const auto* v = f.enum_type()->FindValueByNumber(number);
      return XrlValue::Txt(v != nullptr ? v->name() : std::to_string(number));
    }
    case FieldDescriptor::CPPTYPE_MESSAGE: {
      const Message& sub = rep ? r->GetRepeatedMessage(m, &f, index) : r->GetMessage(m, &f);
      WellKnown kind = Classify(f.message_type());
      if (kind != WellKnown::kNone) return ReadWellKnown(kind, sub);
      ASSIGN_OR_RETURN(XrlArgs args, ReadArgs(sub, depth + 1));
      return XrlValue::Msg(std::move(args));
    }
  }
  return absl::InternalError("unknown field type");
}

// The arguments of `message`, which `depth` messages enclose.
absl::StatusOr<XrlArgs> ReadArgs(const Message& message, int depth) {
  const Descriptor& desc = *message.GetDescriptor();
  if (depth > XrlArgs::kMaxNesting) return TooDeep(desc);
  const Reflection* r = message.GetReflection();
  XrlArgs args;
  for (int i = 0; i < desc.field_count(); ++i) {
    const FieldDescriptor& f = *desc.field(i);
    if (!f.is_repeated()) {
      if (f.has_presence() && !r->HasField(message, &f)) continue;
      ASSIGN_OR_RETURN(std::optional<XrlValue> value, ReadValue(message, f, -1, depth));
      if (value) args.Add(XrlAtom(f.name(), *std::move(value)));
      continue;
    }
    int n = r->FieldSize(message, &f);
    std::vector<XrlValue> values;
    values.reserve(n);
    AtomType element = ScalarAtom(f);
    for (int j = 0; j < n; ++j) {
      ASSIGN_OR_RETURN(std::optional<XrlValue> value, ReadValue(message, f, j, depth));
      if (!value) {
        return absl::InvalidArgumentError(
            absl::StrFormat("%s[%d] has no address family set", f.full_name(), j));
      }
      values.push_back(*std::move(value));
    }
    args.Add(XrlAtom::List(f.name(), element, std::move(values)));
  }
  return args;
}

}  // namespace

XrlType FieldXrlType(const FieldDescriptor& field) {
  return XrlType{ScalarAtom(field), field.is_repeated()};
}

absl::Status ArgsToMessage(const XrlArgs& args, Message* message) {
  message->Clear();
  return ToMessage().Fill(args, message, "", 0);
}

absl::StatusOr<XrlArgs> MessageToArgs(const Message& message) { return ReadArgs(message, 0); }

}  // namespace sluice::ipc
