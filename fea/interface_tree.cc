#include "fea/interface_tree.h"

#include <algorithm>

namespace sluice::fea {

namespace {

Interface LinkOnly(const Interface& i) {
  Interface copy = i;
  copy.addresses.clear();
  return copy;
}

}  // namespace

const Interface* InterfaceTree::FindByIndex(uint32_t index) const {
  auto it = by_index_.find(index);
  return it == by_index_.end() ? nullptr : &it->second;
}

const Interface* InterfaceTree::FindByName(std::string_view name) const {
  for (const auto& [index, i] : by_index_) {
    if (i.name == name) return &i;
  }
  return nullptr;
}

const Interface* InterfaceTree::FindConnected(const net::IPAddress& address) const {
  const Interface* best = nullptr;
  int best_length = -1;
  for (const auto& [index, i] : by_index_) {
    for (const InterfaceAddress& ia : i.addresses) {
      if (ia.prefix_length > best_length && ia.network().Contains(address)) {
        best = &i;
        best_length = ia.prefix_length;
      }
    }
  }
  return best;
}

std::vector<const Interface*> InterfaceTree::interfaces() const {
  std::vector<const Interface*> out;
  out.reserve(by_index_.size());
  for (const auto& [index, i] : by_index_) out.push_back(&i);
  return out;
}

std::vector<InterfaceEvent> InterfaceTree::SetInterface(const Interface& link) {
  auto it = by_index_.find(link.index);
  if (it == by_index_.end()) {
    Interface added = LinkOnly(link);
    by_index_.emplace(link.index, added);
    return {InterfaceEvent{InterfaceEventKind::kInterfaceAdded, added, {}}};
  }
  Interface& current = it->second;
  if (current.SameLink(link)) return {};
  std::vector<InterfaceAddress> addresses = std::move(current.addresses);
  current = LinkOnly(link);
  current.addresses = std::move(addresses);
  return {InterfaceEvent{InterfaceEventKind::kInterfaceChanged, current, {}}};
}

std::vector<InterfaceEvent> InterfaceTree::RemoveInterface(uint32_t index) {
  auto it = by_index_.find(index);
  if (it == by_index_.end()) return {};
  std::vector<InterfaceEvent> events;
  Interface& i = it->second;
  while (!i.addresses.empty()) {
    InterfaceAddress a = i.addresses.back();
    i.addresses.pop_back();
    events.push_back(InterfaceEvent{InterfaceEventKind::kAddressRemoved, i, a});
  }
  events.push_back(InterfaceEvent{InterfaceEventKind::kInterfaceRemoved, i, {}});
  by_index_.erase(it);
  return events;
}

std::vector<InterfaceEvent> InterfaceTree::AddAddress(uint32_t index,
                                                      const InterfaceAddress& address) {
  auto it = by_index_.find(index);
  if (it == by_index_.end()) return {};
  Interface& i = it->second;
  std::vector<InterfaceEvent> events;
  auto same = std::find_if(i.addresses.begin(), i.addresses.end(),
                           [&](const InterfaceAddress& a) { return a.address == address.address; });
  if (same != i.addresses.end()) {
    if (*same == address) return {};
    InterfaceAddress old = *same;
    i.addresses.erase(same);
    events.push_back(InterfaceEvent{InterfaceEventKind::kAddressRemoved, i, old});
  }
  i.addresses.push_back(address);
  events.push_back(InterfaceEvent{InterfaceEventKind::kAddressAdded, i, address});
  return events;
}

std::vector<InterfaceEvent> InterfaceTree::RemoveAddress(uint32_t index,
                                                         const net::IPAddress& address) {
  auto it = by_index_.find(index);
  if (it == by_index_.end()) return {};
  Interface& i = it->second;
  auto same = std::find_if(i.addresses.begin(), i.addresses.end(),
                           [&](const InterfaceAddress& a) { return a.address == address; });
  if (same == i.addresses.end()) return {};
  InterfaceAddress old = *same;
  i.addresses.erase(same);
  return {InterfaceEvent{InterfaceEventKind::kAddressRemoved, i, old}};
}

std::vector<InterfaceEvent> InterfaceTree::ReplaceWith(const InterfaceTree& other) {
  std::vector<InterfaceEvent> events;
  auto append = [&](std::vector<InterfaceEvent> more) {
    for (auto& e : more) events.push_back(std::move(e));
  };
  std::vector<uint32_t> gone;
  for (const auto& [index, i] : by_index_) {
    if (other.FindByIndex(index) == nullptr) gone.push_back(index);
  }
  for (uint32_t index : gone) append(RemoveInterface(index));
  for (const auto& [index, wanted] : other.by_index_) {
    append(SetInterface(wanted));
    const Interface& have = by_index_.at(index);
    std::vector<net::IPAddress> stale;
    for (const InterfaceAddress& a : have.addresses) {
      if (std::find(wanted.addresses.begin(), wanted.addresses.end(), a) ==
          wanted.addresses.end()) {
        stale.push_back(a.address);
      }
    }
    for (const net::IPAddress& a : stale) append(RemoveAddress(index, a));
    for (const InterfaceAddress& a : wanted.addresses) append(AddAddress(index, a));
  }
  return events;
}

}  // namespace sluice::fea
