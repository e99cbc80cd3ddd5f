#pragma once
// Symbol: a short name (a protocol name such as "ebgp", an interface name such as "eth0")
// interned once per process and then handled as a 4-octet value, so that routes can carry
// names without carrying strings. Symbol() is the empty name.
//
// Symbols are never freed: use them only for names drawn from a small set (protocols,
// interfaces), not for anything a peer can make up in unbounded numbers. Interning and reading
// a name are thread-safe; comparing and hashing Symbols never touch the table.

#include <cstdint>
#include <string>
#include <string_view>

namespace sluice::rib {

class Symbol {
 public:
  Symbol() = default;
  // The Symbol for `name`, created on first use.
  static Symbol Intern(std::string_view name);

  const std::string& name() const;
  bool empty() const { return id_ == 0; }
  uint32_t id() const { return id_; }

  friend bool operator==(Symbol, Symbol) = default;
  template <typename H>
  friend H AbslHashValue(H h, Symbol s) {
    return H::combine(std::move(h), s.id_);
  }

 private:
  explicit Symbol(uint32_t id) : id_(id) {}
  uint32_t id_ = 0;
};

}  // namespace sluice::rib
