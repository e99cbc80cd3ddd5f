#pragma once
// WatcherList<Event>: callbacks registered by id and called in registration order. A callback
// may add or remove watchers (itself included) while being notified: a watcher removed during a
// notification is not called afterwards; one added during it is called from the next one on.

#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace sluice::fea {

using WatcherId = uint64_t;

template <typename Event>
class WatcherList {
 public:
  using Callback = std::function<void(const Event&)>;

  WatcherId Add(Callback callback) {
    WatcherId id = next_id_++;
    callbacks_.emplace(id, std::move(callback));
    return id;
  }
  // Returns false when `id` is not registered.
  bool Remove(WatcherId id) { return callbacks_.erase(id) > 0; }
  size_t size() const { return callbacks_.size(); }

  void Notify(const Event& event) {
    std::vector<WatcherId> ids;
    ids.reserve(callbacks_.size());
    for (const auto& [id, cb] : callbacks_) ids.push_back(id);
    for (WatcherId id : ids) {
      auto it = callbacks_.find(id);
      if (it == callbacks_.end()) continue;
      Callback cb = it->second;  // the callback may remove itself
      cb(event);
    }
  }

 private:
  WatcherId next_id_ = 1;
  std::map<WatcherId, Callback> callbacks_;
};

}  // namespace sluice::fea
