#include "rib/service/full_push_gate.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/log.h"
#include "rib/protocol.h"

namespace sluice::rib {

FullPushGate::FullPushGate(boost::asio::io_context& io, std::chrono::seconds restart_time,
                           std::vector<std::string> unknown_origin, std::function<void()> on_open,
                           std::chrono::milliseconds discovery)
    : timer_(io, restart_time),
      discovery_(io, discovery),
      unknown_origin_(std::move(unknown_origin)),
      on_open_(std::move(on_open)) {
  timer_.async_wait([this](const boost::system::error_code& error) {
    if (!error) Open("the restart time is over");
  });
  discovery_.async_wait([this](const boost::system::error_code& error) {
    if (!error && !expected_) IgpReady();  // no FEA yet: nothing it holds to protect
  });
}

void FullPushGate::WhenIgpReady(std::function<void()> fn) {
  if (igp_ready_) return fn();
  igp_waiters_.push_back(std::move(fn));
}

void FullPushGate::CheckIgp() {
  if (igp_ready_ || !expected_) return;
  for (const std::string& p : waiting_) {
    if (DefaultsFor(p).protocol_class != ProtocolClass::kEgp) return;
  }
  IgpReady();
}

void FullPushGate::IgpReady() {
  if (igp_ready_) return;
  igp_ready_ = true;
  discovery_.cancel();
  std::vector<std::function<void()>> waiters = std::move(igp_waiters_);
  igp_waiters_.clear();
  if (!waiters.empty()) {
    SLUICE_LOG(kInfo) << "answering " << waiters.size() << " nexthop questions held back";
  }
  for (auto& fn : waiters) fn();
}

void FullPushGate::Expect(const std::vector<std::string>& protocols) {
  if (open_) return;
  expected_ = true;
  for (const std::string& p : protocols) {
    if (p.empty()) {
      for (const std::string& u : unknown_origin_) {
        if (!fed_.contains(u)) waiting_.insert(u);
      }
    } else if (!fed_.contains(p)) {
      waiting_.insert(p);
    }
  }
  if (waiting_.empty()) {
    Open(protocols.empty() ? "the FEA holds no routes" : "every protocol has re-fed the RIB");
  } else {
    CheckIgp();
    SLUICE_LOG(kInfo) << "the FEA keeps its routes until " << absl::StrJoin(waiting_, ", ")
                      << " have re-fed the RIB";
  }
}

void FullPushGate::EndOfRib(std::string_view protocol) {
  if (open_) return;
  fed_.insert(std::string(protocol));
  auto it = waiting_.find(protocol);
  if (it == waiting_.end()) return;
  waiting_.erase(it);
  if (waiting_.empty() && expected_) {
    Open("every protocol has re-fed the RIB");
  } else {
    CheckIgp();
  }
}

std::string FullPushGate::Describe() const {
  if (open_) return "open";
  auto left = std::chrono::duration_cast<std::chrono::seconds>(timer_.expiry() -
                                                               std::chrono::steady_clock::now());
  if (!expected_) return absl::StrCat("waiting for the FEA (", left.count(), " s left)");
  return absl::StrCat("waiting for ", absl::StrJoin(waiting_, ", "), " (", left.count(),
                      " s left)");
}

void FullPushGate::Open(const char* why) {
  if (open_) return;
  open_ = true;
  timer_.cancel();
  if (!waiting_.empty()) {
    SLUICE_LOG(kWarning) << "FEA sweep allowed (" << why << ") before "
                         << absl::StrJoin(waiting_, ", ") << " re-fed the RIB";
  } else {
    SLUICE_LOG(kInfo) << "FEA sweep allowed: " << why;
  }
  waiting_.clear();
  IgpReady();
  if (on_open_) on_open_();
  for (auto& fn : open_listeners_) fn();
}

}  // namespace sluice::rib
