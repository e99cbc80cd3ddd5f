#pragma once
// Helpers for the BGP stage tests: attribute sets written in one line, peer sources, and a
// fixture with an event loop, a Plumber and an attribute store.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "bgp/stages/bgp_stage.h"
#include "bgp/stages/route.h"
#include "bgp/wire/attribute_store.h"
#include "stage/cache_stage.h"
#include "stage/capture_stage.h"
#include "stage/plumber.h"

namespace sluice::bgp::testing {

inline net::Prefix P(const char* text) { return net::Prefix::Parse(text).value(); }
inline net::IPAddress A(const char* text) { return net::IPAddress::Parse(text).value(); }
inline net::IPv4Address A4(const char* text) { return net::IPv4Address::Parse(text).value(); }

// PathAttributes built field by field: Attr().Path({65001, 65002}).NextHop("192.0.2.1").Med(5)
class Attr {
 public:
  Attr() {
    a_.origin = Origin::kIgp;
    a_.as_path = AsPath();
  }
  Attr& Path(std::initializer_list<uint32_t> asns) {
    a_.as_path = AsPath::Sequence(asns);
    return *this;
  }
  Attr& PathWithSet(std::initializer_list<uint32_t> seq, std::initializer_list<uint32_t> set) {
    AsPath p = AsPath::Sequence(seq);
    std::vector<uint32_t> s(set);
    p.AppendSegment(SegmentType::kSet, s);
    a_.as_path = p;
    return *this;
  }
  Attr& NextHop(const char* nh) {
    net::IPAddress a = A(nh);
    if (a.is_v4()) {
      a_.next_hop = a.v4();
    } else {
      a_.mp_next_hop = MpNextHop{a, std::nullopt};
    }
    return *this;
  }
  Attr& Med(uint32_t med) {
    a_.med = med;
    return *this;
  }
  Attr& LocalPref(uint32_t lp) {
    a_.local_pref = lp;
    return *this;
  }
  Attr& Origin(bgp::Origin o) {
    a_.origin = o;
    return *this;
  }
  Attr& Community(uint32_t c) {
    a_.communities.push_back(c);
    return *this;
  }
  Attr& OriginatorId(const char* id) {
    a_.originator_id = A4(id);
    return *this;
  }
  Attr& ClusterList(std::initializer_list<uint32_t> ids) {
    a_.cluster_list = ids;
    return *this;
  }
  const PathAttributes& get() const { return a_; }
  AttrRef In(AttributeStore& store) const { return store.Intern(a_); }

 private:
  PathAttributes a_;
};

// A peer source: Ebgp("P1", "192.0.2.1", 65001), Ibgp("P2", "10.0.0.2").
inline PeerSource Source(uint32_t id, const char* name, const char* address, uint32_t as, bool ibgp,
                         const char* bgp_id = nullptr, bool rr_client = false) {
  PeerSource s;
  s.peer_id = id;
  s.name = name;
  s.address = A(address);
  s.bgp_id = A4(bgp_id != nullptr ? bgp_id : (A(address).is_v4() ? address : "10.255.0.1"));
  s.remote_as = as;
  s.ibgp = ibgp;
  s.rr_client = rr_client;
  return s;
}

class StagesTest : public ::testing::Test {
 protected:
  void RunLoop() {
    io_.restart();
    io_.run();
  }
  // Runs at most `n` ready handlers (one background slice each, typically).
  void Poll(int n) {
    io_.restart();
    for (int i = 0; i < n; ++i) {
      if (io_.poll_one() == 0) break;
    }
  }
  stage::CacheStage<BgpRoute>* Cache(const std::string& name) {
    return plumber_.Make<stage::CacheStage<BgpRoute>>(
        name, [this](const std::string& v) { violations_.push_back(v); });
  }
  stage::CaptureStage<BgpRoute>* Capture(const std::string& name, bool push = true) {
    return plumber_.Make<stage::CaptureStage<BgpRoute>>(name, push);
  }

  // Order matters: stages (owned by the Plumber) hold routes, so they go before the store.
  boost::asio::io_context io_;
  AttributeStore store_;
  PeerSourceRegistry sources_;
  std::vector<std::string> violations_;
  stage::Plumber plumber_{io_};
};

}  // namespace sluice::bgp::testing
