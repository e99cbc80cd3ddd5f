#pragma once
// Fakes for the routing side's seams: a session that decodes what it is sent and keeps what the
// remote peer would hold; a RIB route client and a nexthop interest client answering from the
// event loop.

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <map>
#include <string>
#include <vector>

#include "bgp/session/session_link.h"
#include "bgp/stages/rib_client.h"
#include "bgp/wire/message_framer.h"
#include "bgp/wire/update_decoder.h"
#include "net/prefix_map.h"

namespace sluice::bgp::testing {

// SessionSender that decodes every UPDATE it is given as the remote peer would, and keeps the
// remote peer's view: prefix → attributes.
class FakeSession : public SessionSender {
 public:
  FakeSession(AttributeStore* store, SessionParams params)
      : params_(params), decoder_(params, store) {}

  bool established() const override { return up; }
  bool SendMessages(std::vector<uint8_t> messages) override {
    if (!up) return false;
    octets += messages.size();
    largest_send = std::max(largest_send, messages.size());
    ++sends;
    size_t pos = 0;
    while (pos + kHeaderSize <= messages.size()) {
      const size_t len = (size_t{messages[pos + 16]} << 8) | messages[pos + 17];
      if (len < kHeaderSize || pos + len > messages.size()) {
        errors.push_back("bad framing");
        return true;
      }
      decoder_.Decode(Bytes(messages.data() + pos, len), &u_);
      ++updates;
      if (!u_.errors.ok()) errors.push_back(u_.errors.reason);
      if (u_.end_of_rib) ++end_of_ribs;
      log.push_back(Describe(u_));
      for (const Nlri& n : u_.withdrawn) {
        if (!held.erase(n.prefix))
          errors.push_back("withdrawal of " + n.prefix.ToString() + " never announced");
        ++withdrawn;
      }
      for (const Nlri& n : u_.announced) {
        held[n.prefix] = u_.attributes;
        ++announced;
      }
      pos += len;
    }
    return true;
  }
  size_t send_backlog() const override { return backlog; }
  void SendRouteRefresh(AfiSafi family) override { refresh_requests.push_back(family); }
  void ReportPrefixCount(size_t received, size_t accepted) override {
    last_received_count = received;
    last_prefix_count = accepted;
  }
  void PauseInput(bool p) override {
    if (p && !paused) ++pauses;
    paused = p;
  }

  // One line per UPDATE: "End-of-RIB", or "withdraw N [..] announce M [..] {attributes}"
  // (prefixes listed when there are at most 4).
  static std::string Describe(const UpdateMessage& u) {
    if (u.end_of_rib) return "End-of-RIB " + u.end_of_rib->ToString();
    auto list = [](const std::vector<Nlri>& v) {
      std::string s = std::to_string(v.size());
      if (v.size() <= 4) {
        for (const Nlri& n : v) s += " " + n.prefix.ToString();
      }
      return s;
    };
    std::string s;
    if (!u.withdrawn.empty()) s += "withdraw " + list(u.withdrawn);
    if (!u.announced.empty()) {
      if (!s.empty()) s += "; ";
      s += "announce " + list(u.announced) + " {" + u.attributes->ToString() + "}";
    }
    return s;
  }
  std::string Log() const {
    std::string s;
    for (const std::string& l : log) s += l + "\n";
    return s;
  }

  // The remote peer's session went down: it forgets everything.
  void Reset() {
    held.clear();
    up = false;
  }

  bool up = true;
  bool paused = false;  // PauseInput
  size_t pauses = 0;
  size_t backlog = 0;
  size_t octets = 0, updates = 0, end_of_ribs = 0, announced = 0, withdrawn = 0;
  size_t sends = 0;                // SendMessages calls
  size_t largest_send = 0;         // octets of the largest one
  size_t last_prefix_count = 0;    // accepted
  size_t last_received_count = 0;  // in the Adj-RIB-In
  std::vector<AfiSafi> refresh_requests;
  std::vector<std::string> errors;
  std::vector<std::string> log;
  std::map<net::Prefix, AttrRef> held;

 private:
  SessionParams params_;
  UpdateDecoder decoder_;
  UpdateMessage u_;
};

// RibRouteClient that applies batches to `routes` when the loop runs (or fails them).
class FakeRib : public RibRouteClient {
 public:
  explicit FakeRib(boost::asio::io_context& io) : io_(io) {}
  void SendRoutes(net::Family, std::vector<RibRouteChange> batch, Done done) override {
    ++batches;
    max_batch = std::max(max_batch, batch.size());
    ++in_flight;
    max_in_flight = std::max(max_in_flight, in_flight);
    boost::asio::post(
        io_, [this, batch = std::move(batch), done = std::move(done), generation = generation_] {
          --in_flight;
          if (fail || generation != generation_) {
            done(absl::UnavailableError("rib is gone"));
            return;
          }
          for (const RibRouteChange& c : batch) {
            if (c.op == RibRouteChange::Op::kAdd) {
              routes[c.prefix] = c;
            } else {
              deleted.push_back(c.prefix);
              if (!routes.erase(c.prefix)) {
                errors.push_back("delete of " + c.prefix.ToString() + " not in the RIB");
              }
            }
          }
          done(absl::OkStatus());
        });
  }
  // A new RIB instance: it holds nothing, and batches sent to the old one are lost.
  void Reborn() {
    routes.clear();
    ++generation_;
  }
  bool fail = false;
  size_t batches = 0, max_batch = 0, in_flight = 0, max_in_flight = 0;
  std::map<net::Prefix, RibRouteChange> routes;
  std::vector<net::Prefix> deleted;  // every delete applied, in order
  std::vector<std::string> errors;

 private:
  boost::asio::io_context& io_;
  int generation_ = 0;
};

// NexthopInterestClient answering from a table of covering routes: the valid subnet is the
// covering route itself (enough for tests; a real RIB excludes more specifics). Answers come
// from the loop; `hold` keeps them back until Release().
class FakeInterest : public NexthopInterestClient {
 public:
  explicit FakeInterest(boost::asio::io_context& io) : io_(io) {}
  void RegisterInterest(const net::IPAddress& nexthop, Answer answer) override {
    ++registrations;
    pending_.emplace_back(nexthop, std::move(answer));
    if (!hold) Release();
  }
  void DeregisterInterest(const net::Prefix& subnet) override { deregistered.push_back(subnet); }
  void Release() {
    for (auto& [nh, answer] : pending_) {
      NexthopInfo info;
      info.valid_subnet = net::Prefix(nh, nh.bits());
      const std::pair<const net::Prefix, uint32_t>* best = nullptr;
      for (const auto& e : routes) {
        if (e.first.Contains(nh) && (best == nullptr || e.first.length() > best->first.length()))
          best = &e;
      }
      if (best != nullptr) {
        info.resolvable = true;
        info.metric = best->second;
        info.valid_subnet = best->first;
      }
      boost::asio::post(io_, [answer = std::move(answer), info] { answer(info); });
    }
    pending_.clear();
  }
  std::map<net::Prefix, uint32_t> routes;  // covering routes and their metric
  bool hold = false;
  int registrations = 0;
  std::vector<net::Prefix> deregistered;

 private:
  boost::asio::io_context& io_;
  std::vector<std::pair<net::IPAddress, Answer>> pending_;
};

}  // namespace sluice::bgp::testing
