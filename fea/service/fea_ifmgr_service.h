#pragma once
// FeaIfmgrService: fea_ifmgr/1.0 (ipc/proto/fea_ifmgr.proto) over the FEA's IfMgr
// (fea/ifmgr.h), and the calls to subscribers' fea_ifmgr_client/1.0. A thin adapter: every
// handler runs on the FEA's event loop.
//
// Configuration calls (add_interface, set_enabled, add_address, ...) reach a DummyIfMgr; with
// the netlink backend the tree follows the kernel and they fail with FAILED_PRECONDITION.
//
// Subscribers (subscribe): a subscriber first gets the whole tree in one call (SYNC_START, each
// interface and its addresses, SYNC_DONE), then every change; the changes of one event-loop turn
// go in one call. Calls to one subscriber are ordered (one XRL stream per target). A subscriber
// that dies (Finder death event) or is unknown to the Finder is dropped; subscribing again
// starts with a new full dump. A call that fails otherwise (lost on the way, or refused) to a
// subscriber that stays up leaves its copy unknown: it gets a new full dump after a backoff, and
// no changes meanwhile (ipc/redump.h).

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/btree_map.h"
#include "absl/status/status.h"
#include "fea/dummy_ifmgr.h"
#include "fea/ifmgr.h"
#include "ipc/proto/fea_ifmgr_client.pb.h"
#include "ipc/redump.h"
#include "ipc/xrl_router.h"

namespace sluice::fea {

class FeaIfmgrService {
 public:
  // `dummy` is the same object as `ifmgr` when the backend is dummy, else null.
  FeaIfmgrService(boost::asio::io_context& io, ipc::XrlRouter& router, IfMgr& ifmgr,
                  DummyIfMgr* dummy);
  ~FeaIfmgrService();
  FeaIfmgrService(const FeaIfmgrService&) = delete;
  FeaIfmgrService& operator=(const FeaIfmgrService&) = delete;

  // Adds the handlers and starts watching the IfMgr; call before router.Start().
  absl::Status Register();

  std::string Describe() const;
  size_t subscriber_count() const { return subscribers_.size(); }
  // Full dumps sent again after a failed call, to the current subscribers.
  uint64_t redumps() const;

 private:
  absl::StatusOr<DummyIfMgr*> Dummy() const;
  void OnEvent(const InterfaceEvent& event);
  void Flush();
  // The whole tree: SYNC_START, each interface and its addresses, SYNC_DONE.
  void SendDump(const std::string& target);
  void Send(const std::string& target, fea_ifmgr_client::v1::InterfaceEventsRequest request);
  // A call to `target`, sent after its dump number `dump`, failed with `status`.
  void Failed(const std::string& target, uint64_t dump, const absl::Status& status);
  bool Drop(const std::string& target);

  boost::asio::io_context& io_;
  ipc::XrlRouter& router_;
  IfMgr& ifmgr_;
  DummyIfMgr* dummy_;
  WatcherId watcher_ = 0;
  absl::btree_map<std::string, std::unique_ptr<ipc::DumpSubscriber>> subscribers_;
  fea_ifmgr_client::v1::InterfaceEventsRequest pending_;  // events of this loop turn
  bool flush_posted_ = false;
  uint64_t events_sent_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace sluice::fea
