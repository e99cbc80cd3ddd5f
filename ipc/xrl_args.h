#pragma once
// XRL arguments: typed atoms and their text form (XORP NSDI'05 §6.1; XORP libxipc/xrl_atom.hh).
//
// An XRL's arguments are `name:type=value` atoms joined by '&':
//
//   protocol:txt=static&network:ipv4net=10.0.0.0/8&nexthop:ipv4=192.0.2.1&metric:u32=10
//
// Atom types and value text:
//   i32 i64        decimal, optional '-'                 -5
//   u32 u64        decimal                               65000
//   bool           true | false (1 | 0 accepted)         true
//   fp64           decimal floating point                0.25
//   txt            bytes, with %XX escapes (below)       hello%20world
//   binary         hex digits, two per octet             00ff10
//   ipv4 ipv6      address (RFC 5952 form printed)       192.0.2.1   2001:db8::1
//   ipv4net ipv6net  prefix, host bits zero              10.0.0.0/8  2001:db8::/32
//   ipvx ipvxnet   address / prefix of either family     192.0.2.1   2001:db8::/32
//   mac            six hex octets                        00:11:22:aa:bb:cc
//   msg            a nested message: its own arguments in parentheses
//                                                        route:msg=(network:ipv4net=10.0.0.0/8&nexthop:ipv4=192.0.2.1)
//   list<T>        T values separated by ',' (empty text = empty list)
//                                                        as_path:list<u32>=65001,65002
//                                                        routes:list<msg>=(network:ipv4net=10.0.0.0/8),(network:ipv4net=10.1.0.0/16)
//
// Escaping: in a value, "%XX" (two hex digits) stands for the octet 0xXX. The printer escapes
// '%', '&', ',', '(', ')', '"', '#', space, and every octet below 0x21 or above 0x7e; the
// parser decodes any %XX. Unescaped, '&' ends an argument, ',' ends a list element and ')'
// ends a nested message; elsewhere those characters are taken literally (so
// "name:txt=a,b" at top level is the text "a,b"). An unescaped value of exactly `""` is the
// empty txt or binary value; the printer writes it so inside lists, where an empty element
// would otherwise vanish ("list<txt>=a,""" is the two texts "a" and "").
//
// Lists hold atoms of one type and do not nest; a list of messages whose messages hold lists
// is fine (the parentheses delimit). msg values nest at most XrlArgs::kMaxNesting (64) levels
// deep; deeper text is an error ("nesting too deep"), so that parsing, printing and freeing
// arguments never recurse without bound. These rules are the same in requests and in printed
// replies, so a printed reply parses back to the same arguments.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ipc/mac_address.h"
#include "net/ip_address.h"
#include "net/prefix.h"

namespace sluice::ipc {

enum class AtomType : uint8_t {
  kI32,
  kU32,
  kI64,
  kU64,
  kBool,
  kFp64,
  kTxt,
  kBinary,
  kIPv4,
  kIPv6,
  kIPv4Net,
  kIPv6Net,
  kMac,
  kMsg,
  kIPvX,     // an address of either family (XORP's IPvX)
  kIPvXNet,  // a prefix of either family (XORP's IPvXNet)
};

// "i32", "ipv4net", "msg", ...
std::string_view AtomTypeName(AtomType type);
std::optional<AtomType> AtomTypeFromName(std::string_view name);

// The type of an argument: an atom type, or a list of one.
struct XrlType {
  AtomType atom = AtomType::kTxt;
  bool is_list = false;

  std::string ToString() const;  // "u32", "list<msg>"
  static std::optional<XrlType> Parse(std::string_view text);
  friend bool operator==(const XrlType&, const XrlType&) = default;
};

class XrlAtom;

// An ordered list of named atoms: the arguments of an XRL or of a nested message.
class XrlArgs {
 public:
  XrlArgs();
  ~XrlArgs();
  XrlArgs(const XrlArgs&);
  XrlArgs(XrlArgs&&) noexcept;
  XrlArgs& operator=(const XrlArgs&);
  XrlArgs& operator=(XrlArgs&&) noexcept;

  XrlArgs& Add(XrlAtom atom);
  size_t size() const;
  bool empty() const;
  const XrlAtom& operator[](size_t i) const;
  const std::vector<XrlAtom>& atoms() const { return atoms_; }
  // The first atom named `name`, or nullptr.
  const XrlAtom* Find(std::string_view name) const;

  // "a:u32=1&b:txt=x" ("" when empty).
  std::string ToString() const;
  void AppendTo(std::string* out) const;

  // The most msg values one inside another: "a:msg=(b:msg=(c:u32=1))" nests 2 levels.
  static constexpr int kMaxNesting = 64;

  // Parses the text after an XRL's '?'. Columns in errors count from `column_offset` + 1, so
  // that an XRL parser can report columns of the whole XRL. Errors (InvalidArgument):
  // "column C: argument N "name": what is wrong", e.g. "nesting too deep (more than 64 nested
  // msg values)" at the parenthesis that opens the 65th level.
  static absl::StatusOr<XrlArgs> Parse(std::string_view text, int column_offset = 0);

  friend bool operator==(const XrlArgs& a, const XrlArgs& b);

 private:
  std::vector<XrlAtom> atoms_;
};

// One value of one atom type.
class XrlValue {
 public:
  XrlValue() = default;  // txt ""

  static XrlValue I32(int32_t v) { return XrlValue(AtomType::kI32, int64_t{v}); }
  static XrlValue U32(uint32_t v) { return XrlValue(AtomType::kU32, uint64_t{v}); }
  static XrlValue I64(int64_t v) { return XrlValue(AtomType::kI64, v); }
  static XrlValue U64(uint64_t v) { return XrlValue(AtomType::kU64, v); }
  static XrlValue Bool(bool v) { return XrlValue(AtomType::kBool, v); }
  static XrlValue Fp64(double v) { return XrlValue(AtomType::kFp64, v); }
  static XrlValue Txt(std::string v) { return XrlValue(AtomType::kTxt, std::move(v)); }
  static XrlValue Binary(std::string octets) {
    return XrlValue(AtomType::kBinary, std::move(octets));
  }
  static XrlValue IPv4(net::IPv4Address v) { return XrlValue(AtomType::kIPv4, v); }
  static XrlValue IPv6(net::IPv6Address v) { return XrlValue(AtomType::kIPv6, v); }
  // ipv4 or ipv6, following the address's family.
  static XrlValue IP(const net::IPAddress& v);
  // ipv4net or ipv6net, following the prefix's family.
  static XrlValue Net(const net::Prefix& v);
  // ipvx / ipvxnet: either family.
  static XrlValue IPvX(const net::IPAddress& v) { return XrlValue(AtomType::kIPvX, v); }
  static XrlValue IPvXNet(const net::Prefix& v) { return XrlValue(AtomType::kIPvXNet, v); }
  static XrlValue Mac(MacAddress v) { return XrlValue(AtomType::kMac, v); }
  static XrlValue Msg(XrlArgs v) { return XrlValue(AtomType::kMsg, std::move(v)); }

  AtomType type() const { return type_; }

  // Accessors; each requires type() to be the matching type.
  int32_t i32() const { return static_cast<int32_t>(std::get<int64_t>(v_)); }
  uint32_t u32() const { return static_cast<uint32_t>(std::get<uint64_t>(v_)); }
  int64_t i64() const { return std::get<int64_t>(v_); }
  uint64_t u64() const { return std::get<uint64_t>(v_); }
  bool boolean() const { return std::get<bool>(v_); }
  double fp64() const { return std::get<double>(v_); }
  const std::string& txt() const { return std::get<std::string>(v_); }
  const std::string& binary() const { return std::get<std::string>(v_); }
  net::IPv4Address ipv4() const { return std::get<net::IPv4Address>(v_); }
  net::IPv6Address ipv6() const { return std::get<net::IPv6Address>(v_); }
  const net::Prefix& ipv4net() const { return std::get<net::Prefix>(v_); }
  const net::Prefix& ipv6net() const { return std::get<net::Prefix>(v_); }
  const net::IPAddress& ipvx() const { return std::get<net::IPAddress>(v_); }
  const net::Prefix& ipvxnet() const { return std::get<net::Prefix>(v_); }
  MacAddress mac() const { return std::get<MacAddress>(v_); }
  const XrlArgs& msg() const { return std::get<XrlArgs>(v_); }

  // The value's text as it appears after '=' (escaped). `in_list` writes an empty txt or
  // binary as "" (see the escaping rules above).
  void AppendTo(std::string* out, bool in_list = false) const;
  std::string ToString() const;

  // Parses unescaped `text` as a scalar of `type` (not kMsg). Errors: InvalidArgument saying
  // what the text should have been ("bad u32 value "x": not a decimal number").
  static absl::StatusOr<XrlValue> ParseScalar(AtomType type, std::string_view text);

  friend bool operator==(const XrlValue& a, const XrlValue& b);

 private:
  using Storage = std::variant<int64_t, uint64_t, bool, double, std::string, net::IPv4Address,
                               net::IPv6Address, net::IPAddress, net::Prefix, MacAddress, XrlArgs>;
  template <typename T>
  XrlValue(AtomType type, T v) : type_(type), v_(std::move(v)) {}

  AtomType type_ = AtomType::kTxt;
  Storage v_ = std::string();
};

// A named argument: one value, or a list of values of one atom type.
class XrlAtom {
 public:
  XrlAtom(std::string name, XrlValue value)
      : name_(std::move(name)), type_{value.type(), false}, value_(std::move(value)) {}
  // A list of `element` values; every value must have that type.
  static XrlAtom List(std::string name, AtomType element, std::vector<XrlValue> values);

  const std::string& name() const { return name_; }
  const XrlType& type() const { return type_; }
  bool is_list() const { return type_.is_list; }
  const XrlValue& value() const { return value_; }             // when !is_list()
  const std::vector<XrlValue>& list() const { return list_; }  // when is_list()

  // 1-based column of the atom's name in the parsed text; 0 for atoms built in code.
  int column() const { return column_; }
  void set_column(int column) { column_ = column; }

  std::string ToString() const;  // "name:type=value"
  void AppendTo(std::string* out) const;

  // Equality ignores column().
  friend bool operator==(const XrlAtom& a, const XrlAtom& b);

 private:
  XrlAtom() = default;
  std::string name_;
  XrlType type_;
  XrlValue value_;
  std::vector<XrlValue> list_;
  int column_ = 0;
};

// Appends `text` with the escaping described above.
void AppendEscaped(std::string_view text, std::string* out);

}  // namespace sluice::ipc
