#pragma once
// IfMgr: the interface manager of the FEA (XORP fea/ifconfig): the interface tree and the
// stream of its changes, behind one interface with two backends:
//   - DummyIfMgr (fea/dummy_ifmgr.h): the tree comes from configuration (the router manager
//     adds interfaces and addresses);
//   - NetlinkIfMgr (fea/netlink_ifmgr.h): the Linux kernel's interfaces and addresses, followed
//     through rtnetlink.
// Watchers are called on the process's event loop, once per event, in the order the changes
// happened; tree() already reflects the change (and maybe later ones read in the same batch)
// when a watcher runs.

#include <functional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "fea/interface.h"
#include "fea/interface_tree.h"
#include "fea/watcher_list.h"

namespace sluice::fea {

class IfMgr {
 public:
  using Watcher = std::function<void(const InterfaceEvent&)>;

  virtual ~IfMgr() = default;
  IfMgr(const IfMgr&) = delete;
  IfMgr& operator=(const IfMgr&) = delete;

  // "dummy" or "netlink".
  virtual std::string_view backend_name() const = 0;
  // Reads the initial tree (announced to watchers already registered as kInterfaceAdded and
  // kAddressAdded events) and starts following changes. Errors: the backend's own (netlink:
  // socket errors with the errno text).
  virtual absl::Status Start() = 0;
  // Stops following changes; the tree keeps its last state. Idempotent.
  virtual void Stop() {}

  const InterfaceTree& tree() const { return tree_; }

  WatcherId AddWatcher(Watcher watcher) { return watchers_.Add(std::move(watcher)); }
  bool RemoveWatcher(WatcherId id) { return watchers_.Remove(id); }

 protected:
  IfMgr() = default;
  // Delivers `events` (the result of a tree mutation) to every watcher.
  void Publish(const std::vector<InterfaceEvent>& events) {
    for (const InterfaceEvent& e : events) watchers_.Notify(e);
  }

  InterfaceTree tree_;

 private:
  WatcherList<InterfaceEvent> watchers_;
};

}  // namespace sluice::fea
