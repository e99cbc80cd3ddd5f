#include "ipc/xrl_args.h"

#include <array>
#include <charconv>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::ipc {
namespace {

// Indexed by AtomType.
constexpr std::array<std::string_view, 16> kAtomNames = {
    "i32",  "u32",  "i64",     "u64",     "bool", "fp64", "txt",  "binary",
    "ipv4", "ipv6", "ipv4net", "ipv6net", "mac",  "msg",  "ipvx", "ipvxnet"};
static_assert(kAtomNames.size() == static_cast<size_t>(AtomType::kIPvXNet) + 1);

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool NeedsEscape(unsigned char c) {
  switch (c) {
    case '%':
    case '&':
    case ',':
    case '(':
    case ')':
    case '"':
    case '#':
      return true;
    default:
      return c < 0x21 || c > 0x7e;
  }
}

template <typename T>
bool ParseInteger(std::string_view text, T* out) {
  if (text.empty()) return false;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out, 10);
  return ec == std::errc() && ptr == text.data() + text.size();
}

absl::Status BadValue(AtomType type, std::string_view text, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrFormat("bad %s value \"%s\": %s", AtomTypeName(type), text, why));
}

// Recursive-descent parser of argument lists (see the grammar in xrl_args.h).
class ArgsParser {
 public:
  ArgsParser(std::string_view text, int column_offset)
      : text_(text), column_offset_(column_offset) {}

  absl::StatusOr<XrlArgs> ParseAll() {
    auto args = ParseArgs(/*depth=*/0, /*path=*/"");
    if (!args.ok()) return args;
    if (pos_ != text_.size()) {
      return Error(pos_, "", absl::StrFormat("unexpected '%c'", text_[pos_]));
    }
    return args;
  }

 private:
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return text_[pos_]; }
  int Column(size_t pos) const { return column_offset_ + static_cast<int>(pos) + 1; }

  absl::Status Error(size_t pos, std::string_view where, std::string_view what) const {
    if (where.empty()) {
      return absl::InvalidArgumentError(absl::StrFormat("column %d: %s", Column(pos), what));
    }
    return absl::InvalidArgumentError(
        absl::StrFormat("column %d: argument %s: %s", Column(pos), where, what));
  }

  // Atoms up to the end of the text (depth 0) or up to a ')' (depth > 0, not consumed).
  absl::StatusOr<XrlArgs> ParseArgs(int depth, const std::string& path) {
    XrlArgs args;
    if (AtEnd() || (depth > 0 && Peek() == ')')) return args;
    for (int index = 1;; ++index) {
      auto atom = ParseAtom(depth, index, path);
      if (!atom.ok()) return atom.status();
      for (const XrlAtom& earlier : args.atoms()) {
        if (earlier.name() == atom->name()) {
          return Error(pos_, Describe(path, index, atom->name()), "given twice");
        }
      }
      args.Add(*std::move(atom));
      if (AtEnd() || (depth > 0 && Peek() == ')')) return args;
      if (Peek() != '&') {
        return Error(pos_, Describe(path, index, args.atoms().back().name()),
                     absl::StrFormat("unexpected '%c' after the value", Peek()));
      }
      ++pos_;
      if (AtEnd() || Peek() == '&' || (depth > 0 && Peek() == ')')) {
        return Error(pos_, "", "empty argument after '&'");
      }
    }
  }

  static std::string Describe(const std::string& path, int index, std::string_view name) {
    if (path.empty()) return absl::StrFormat("%d \"%s\"", index, name);
    return absl::StrFormat("%s.%s", path, name);
  }

  absl::StatusOr<XrlAtom> ParseAtom(int depth, int index, const std::string& path) {
    size_t start = pos_;
    size_t colon = pos_;
    while (colon < text_.size() && text_[colon] != ':' && text_[colon] != '&' &&
           text_[colon] != '=' && text_[colon] != ')') {
      ++colon;
    }
    std::string_view name = text_.substr(start, colon - start);
    std::string where = Describe(path, index, name);
    if (colon >= text_.size() || text_[colon] != ':') {
      return Error(start, path.empty() ? absl::StrFormat("%d", index) : path,
                   absl::StrFormat("expected NAME:TYPE=VALUE, got \"%s\"",
                                   text_.substr(start, colon - start)));
    }
    if (!ValidName(name)) {
      return Error(start, where,
                   "bad argument name (want letters, digits and '_', starting with a letter)");
    }
    size_t type_start = colon + 1;
    size_t eq = type_start;
    while (eq < text_.size() && text_[eq] != '=' && text_[eq] != '&') ++eq;
    if (eq >= text_.size() || text_[eq] != '=') {
      return Error(type_start, where, "expected '=' after the type");
    }
    std::string_view type_text = text_.substr(type_start, eq - type_start);
    std::optional<XrlType> type = XrlType::Parse(type_text);
    if (!type) {
      return Error(type_start, where,
                   absl::StrFormat("unknown type \"%s\" (want i32 u32 i64 u64 bool fp64 txt "
                                   "binary ipv4 ipv6 ipv4net ipv6net ipvx ipvxnet mac msg or "
                                   "list<T>)",
                                   type_text));
    }
    pos_ = eq + 1;
    std::string element_path = path.empty() ? std::string(name) : where;
    if (!type->is_list) {
      auto value = ParseElement(type->atom, depth, /*in_list=*/false, where, element_path);
      if (!value.ok()) return value.status();
      XrlAtom atom(std::string(name), *std::move(value));
      atom.set_column(Column(start));
      return atom;
    }
    std::vector<XrlValue> values;
    bool ends = AtEnd() || Peek() == '&' || (depth > 0 && Peek() == ')');
    while (!ends) {
      std::string element_where = absl::StrFormat("%s[%d]", where, static_cast<int>(values.size()));
      auto value =
          ParseElement(type->atom, depth, /*in_list=*/true, element_where,
                       absl::StrFormat("%s[%d]", element_path, static_cast<int>(values.size())));
      if (!value.ok()) return value.status();
      values.push_back(*std::move(value));
      if (AtEnd() || Peek() != ',') break;
      ++pos_;
    }
    XrlAtom atom = XrlAtom::List(std::string(name), type->atom, std::move(values));
    atom.set_column(Column(start));
    return atom;
  }

  static bool ValidName(std::string_view name) {
    if (name.empty()) return false;
    char c0 = name[0];
    if (!((c0 >= 'a' && c0 <= 'z') || (c0 >= 'A' && c0 <= 'Z'))) return false;
    for (char c : name) {
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_')) {
        return false;
      }
    }
    return true;
  }

  absl::StatusOr<XrlValue> ParseElement(AtomType type, int depth, bool in_list,
                                        const std::string& where, const std::string& path) {
    size_t start = pos_;
    if (type == AtomType::kMsg) {
      if (AtEnd() || Peek() != '(') {
        return Error(start, where, "a msg value must be in parentheses: (name:type=value&...)");
      }
      if (depth >= XrlArgs::kMaxNesting) {
        return Error(start, where,
                     absl::StrFormat("nesting too deep (more than %d nested msg values)",
                                     XrlArgs::kMaxNesting));
      }
      ++pos_;
      auto args = ParseArgs(depth + 1, path);
      if (!args.ok()) return args.status();
      if (AtEnd() || Peek() != ')') return Error(pos_, where, "missing ')'");
      ++pos_;
      return XrlValue::Msg(*std::move(args));
    }
    while (!AtEnd()) {
      char c = Peek();
      if (c == '&' || (in_list && c == ',') || (depth > 0 && c == ')')) break;
      ++pos_;
    }
    std::string_view raw = text_.substr(start, pos_ - start);
    std::string text;
    if (raw != "\"\"") {
      text.reserve(raw.size());
      for (size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '%') {
          text.push_back(raw[i]);
          continue;
        }
        int hi = i + 1 < raw.size() ? HexDigit(raw[i + 1]) : -1;
        int lo = i + 2 < raw.size() ? HexDigit(raw[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
          return Error(start + i, where, "'%' must be followed by two hex digits");
        }
        text.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
      }
    } else if (type != AtomType::kTxt && type != AtomType::kBinary) {
      text = raw;
    }
    auto value = XrlValue::ParseScalar(type, text);
    if (!value.ok()) return Error(start, where, std::string(value.status().message()));
    return value;
  }

  std::string_view text_;
  int column_offset_;
  size_t pos_ = 0;
};

}  // namespace

std::string_view AtomTypeName(AtomType type) { return kAtomNames[static_cast<size_t>(type)]; }

std::optional<AtomType> AtomTypeFromName(std::string_view name) {
  for (size_t i = 0; i < kAtomNames.size(); ++i) {
    if (kAtomNames[i] == name) return static_cast<AtomType>(i);
  }
  return std::nullopt;
}

std::string XrlType::ToString() const {
  if (!is_list) return std::string(AtomTypeName(atom));
  return absl::StrCat("list<", std::string(AtomTypeName(atom)), ">");
}

std::optional<XrlType> XrlType::Parse(std::string_view text) {
  constexpr std::string_view kList = "list<";
  if (text.substr(0, kList.size()) == kList && !text.empty() && text.back() == '>') {
    auto atom = AtomTypeFromName(text.substr(kList.size(), text.size() - kList.size() - 1));
    if (!atom) return std::nullopt;
    return XrlType{*atom, true};
  }
  auto atom = AtomTypeFromName(text);
  if (!atom) return std::nullopt;
  return XrlType{*atom, false};
}

// --- XrlArgs

XrlArgs::XrlArgs() = default;
XrlArgs::~XrlArgs() = default;
XrlArgs::XrlArgs(const XrlArgs&) = default;
XrlArgs::XrlArgs(XrlArgs&&) noexcept = default;
XrlArgs& XrlArgs::operator=(const XrlArgs&) = default;
XrlArgs& XrlArgs::operator=(XrlArgs&&) noexcept = default;

XrlArgs& XrlArgs::Add(XrlAtom atom) {
  atoms_.push_back(std::move(atom));
  return *this;
}
size_t XrlArgs::size() const { return atoms_.size(); }
bool XrlArgs::empty() const { return atoms_.empty(); }
const XrlAtom& XrlArgs::operator[](size_t i) const { return atoms_[i]; }

const XrlAtom* XrlArgs::Find(std::string_view name) const {
  for (const XrlAtom& atom : atoms_) {
    if (atom.name() == name) return &atom;
  }
  return nullptr;
}

void XrlArgs::AppendTo(std::string* out) const {
  for (size_t i = 0; i < atoms_.size(); ++i) {
    if (i > 0) out->push_back('&');
    atoms_[i].AppendTo(out);
  }
}

std::string XrlArgs::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

absl::StatusOr<XrlArgs> XrlArgs::Parse(std::string_view text, int column_offset) {
  return ArgsParser(text, column_offset).ParseAll();
}

bool operator==(const XrlArgs& a, const XrlArgs& b) { return a.atoms_ == b.atoms_; }

// --- XrlValue

XrlValue XrlValue::IP(const net::IPAddress& v) { return v.is_v4() ? IPv4(v.v4()) : IPv6(v.v6()); }

XrlValue XrlValue::Net(const net::Prefix& v) {
  return XrlValue(v.is_v4() ? AtomType::kIPv4Net : AtomType::kIPv6Net, v);
}

void AppendEscaped(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (NeedsEscape(c)) {
      out->push_back('%');
      out->push_back(kHex[c >> 4]);
      out->push_back(kHex[c & 15]);
    } else {
      out->push_back(ch);
    }
  }
}

void XrlValue::AppendTo(std::string* out, bool in_list) const {
  switch (type_) {
    case AtomType::kI32:
    case AtomType::kI64:
      absl::StrAppend(out, std::get<int64_t>(v_));
      return;
    case AtomType::kU32:
    case AtomType::kU64:
      absl::StrAppend(out, std::get<uint64_t>(v_));
      return;
    case AtomType::kBool:
      out->append(boolean() ? "true" : "false");
      return;
    case AtomType::kFp64: {
      char buf[64];
      auto [ptr, ec] = std::to_chars(buf, buf + sizeof(buf), fp64());
      out->append(buf, ec == std::errc() ? ptr : buf);
      return;
    }
    case AtomType::kTxt:
      if (txt().empty() && in_list) {
        out->append("\"\"");
      } else {
        AppendEscaped(txt(), out);
      }
      return;
    case AtomType::kBinary: {
      if (binary().empty() && in_list) out->append("\"\"");
      static constexpr char kHex[] = "0123456789abcdef";
      for (char ch : binary()) {
        auto c = static_cast<unsigned char>(ch);
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 15]);
      }
      return;
    }
    case AtomType::kIPv4:
      out->append(ipv4().ToString());
      return;
    case AtomType::kIPv6:
      out->append(ipv6().ToString());
      return;
    case AtomType::kIPv4Net:
    case AtomType::kIPv6Net:
    case AtomType::kIPvXNet:
      out->append(std::get<net::Prefix>(v_).ToString());
      return;
    case AtomType::kIPvX:
      out->append(ipvx().ToString());
      return;
    case AtomType::kMac:
      out->append(mac().ToString());
      return;
    case AtomType::kMsg:
      out->push_back('(');
      msg().AppendTo(out);
      out->push_back(')');
      return;
  }
}

std::string XrlValue::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

absl::StatusOr<XrlValue> XrlValue::ParseScalar(AtomType type, std::string_view text) {
  switch (type) {
    case AtomType::kI32: {
      int32_t v;
      if (!ParseInteger(text, &v)) return BadValue(type, text, "not a 32-bit signed integer");
      return I32(v);
    }
    case AtomType::kU32: {
      uint32_t v;
      if (!ParseInteger(text, &v)) return BadValue(type, text, "not a 32-bit unsigned integer");
      return U32(v);
    }
    case AtomType::kI64: {
      int64_t v;
      if (!ParseInteger(text, &v)) return BadValue(type, text, "not a 64-bit signed integer");
      return I64(v);
    }
    case AtomType::kU64: {
      uint64_t v;
      if (!ParseInteger(text, &v)) return BadValue(type, text, "not a 64-bit unsigned integer");
      return U64(v);
    }
    case AtomType::kBool:
      if (text == "true" || text == "1") return Bool(true);
      if (text == "false" || text == "0") return Bool(false);
      return BadValue(type, text, "want true or false");
    case AtomType::kFp64: {
      double v;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (text.empty() || ec != std::errc() || ptr != text.data() + text.size()) {
        return BadValue(type, text, "not a decimal floating-point number");
      }
      return Fp64(v);
    }
    case AtomType::kTxt:
      return Txt(std::string(text));
    case AtomType::kBinary: {
      if (text.size() % 2 != 0) return BadValue(type, text, "want an even number of hex digits");
      std::string octets;
      octets.reserve(text.size() / 2);
      for (size_t i = 0; i < text.size(); i += 2) {
        int hi = HexDigit(text[i]);
        int lo = HexDigit(text[i + 1]);
        if (hi < 0 || lo < 0) return BadValue(type, text, "want hex digits");
        octets.push_back(static_cast<char>(hi * 16 + lo));
      }
      return Binary(std::move(octets));
    }
    case AtomType::kIPv4: {
      auto v = net::IPv4Address::Parse(text);
      if (!v.ok()) return BadValue(type, text, "not an IPv4 address");
      return IPv4(*v);
    }
    case AtomType::kIPv6: {
      auto v = net::IPv6Address::Parse(text);
      if (!v.ok()) return BadValue(type, text, "not an IPv6 address");
      return IPv6(*v);
    }
    case AtomType::kIPv4Net:
    case AtomType::kIPv6Net: {
      auto v = net::Prefix::Parse(text);
      if (!v.ok()) return BadValue(type, text, std::string(v.status().message()));
      bool want_v4 = type == AtomType::kIPv4Net;
      if (v->is_v4() != want_v4) {
        return BadValue(type, text, want_v4 ? "not an IPv4 prefix" : "not an IPv6 prefix");
      }
      return Net(*v);
    }
    case AtomType::kIPvX: {
      auto v = net::IPAddress::Parse(text);
      if (!v.ok()) return BadValue(type, text, "not an IPv4 or IPv6 address");
      return IPvX(*v);
    }
    case AtomType::kIPvXNet: {
      auto v = net::Prefix::Parse(text);
      if (!v.ok()) return BadValue(type, text, std::string(v.status().message()));
      return IPvXNet(*v);
    }
    case AtomType::kMac: {
      auto v = MacAddress::Parse(text);
      if (!v.ok()) return BadValue(type, text, "want six hex octets like 00:11:22:aa:bb:cc");
      return Mac(*v);
    }
    case AtomType::kMsg:
      return BadValue(type, text, "a msg value must be in parentheses");
  }
  return absl::InternalError("unknown atom type");
}

bool operator==(const XrlValue& a, const XrlValue& b) { return a.type_ == b.type_ && a.v_ == b.v_; }

// --- XrlAtom

XrlAtom XrlAtom::List(std::string name, AtomType element, std::vector<XrlValue> values) {
  XrlAtom atom;
  atom.name_ = std::move(name);
  atom.type_ = XrlType{element, true};
  atom.list_ = std::move(values);
  return atom;
}

void XrlAtom::AppendTo(std::string* out) const {
  out->append(name_);
  out->push_back(':');
  out->append(type_.ToString());
  out->push_back('=');
  if (!type_.is_list) {
    value_.AppendTo(out);
    return;
  }
  for (size_t i = 0; i < list_.size(); ++i) {
    if (i > 0) out->push_back(',');
    list_[i].AppendTo(out, /*in_list=*/true);
  }
}

std::string XrlAtom::ToString() const {
  std::string out;
  AppendTo(&out);
  return out;
}

bool operator==(const XrlAtom& a, const XrlAtom& b) {
  return a.name_ == b.name_ && a.type_ == b.type_ && a.value_ == b.value_ && a.list_ == b.list_;
}

}  // namespace sluice::ipc
