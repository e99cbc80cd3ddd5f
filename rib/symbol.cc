#include "rib/symbol.h"

#include <deque>
#include <mutex>

#include "absl/container/flat_hash_map.h"

namespace sluice::rib {
namespace {

struct SymbolTable {
  std::mutex mu;
  std::deque<std::string> names{std::string()};  // id 0 is the empty name; addresses stay put
  absl::flat_hash_map<std::string, uint32_t> ids{{std::string(), 0}};
};

SymbolTable& Table() {
  static SymbolTable* table = new SymbolTable();  // never destroyed: names outlive everything
  return *table;
}

}  // namespace

Symbol Symbol::Intern(std::string_view name) {
  SymbolTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(std::string(name));
  if (it != t.ids.end()) return Symbol(it->second);
  const uint32_t id = static_cast<uint32_t>(t.names.size());
  t.names.emplace_back(name);
  t.ids.emplace(std::string(name), id);
  return Symbol(id);
}

const std::string& Symbol::name() const {
  SymbolTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.names[id_];
}

}  // namespace sluice::rib
