#include "rib/tag_set.h"

#include <algorithm>
#include <deque>
#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_join.h"

namespace sluice::rib {
namespace {

struct TagTable {
  std::mutex mu;
  std::deque<std::vector<uint32_t>> sets{std::vector<uint32_t>()};  // id 0: the empty set
  absl::flat_hash_map<std::vector<uint32_t>, uint32_t> ids{{std::vector<uint32_t>(), 0}};
};

TagTable& Table() {
  static TagTable* table = new TagTable();  // never destroyed
  return *table;
}

}  // namespace

TagSet TagSet::Of(std::span<const uint32_t> tags) {
  if (tags.empty()) return TagSet();
  std::vector<uint32_t> sorted(tags.begin(), tags.end());
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  TagTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  auto it = t.ids.find(sorted);
  if (it != t.ids.end()) return TagSet(it->second);
  const uint32_t id = static_cast<uint32_t>(t.sets.size());
  t.ids.emplace(sorted, id);
  t.sets.push_back(std::move(sorted));
  return TagSet(id);
}

const std::vector<uint32_t>& TagSet::tags() const {
  TagTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mu);
  return t.sets[id_];
}

bool TagSet::contains(uint32_t tag) const {
  const auto& v = tags();
  return std::binary_search(v.begin(), v.end(), tag);
}

std::string TagSet::ToString() const { return absl::StrJoin(tags(), ","); }

}  // namespace sluice::rib
