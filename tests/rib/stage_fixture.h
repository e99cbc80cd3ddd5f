#pragma once
// A hand-plumbed piece of a RIB network for stage tests: origins, route sources and nexthops,
// with CacheStages to check consistency and a CaptureStage for golden traces.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <vector>

#include "rib/nexthop_table.h"
#include "rib/origin_stage.h"
#include "rib/route_source.h"
#include "stage/cache_stage.h"
#include "stage/capture_stage.h"
#include "stage/plumber.h"
#include "tests/rib/rib_test_util.h"

namespace sluice::rib::testing {

struct StageFixture {
  boost::asio::io_context io;
  NexthopTable nexthops;
  SourceRegistry sources;
  stage::Plumber plumber{io};
  std::vector<stage::CacheStage<RibRoute>*> caches;

  OriginStage* Origin(const std::string& protocol, ProtocolClass c, uint16_t ad) {
    auto* o = plumber.Make<OriginStage>("origin/" + protocol, Symbol::Intern(protocol), c, ad,
                                        &nexthops, io);
    sources.Add(o);
    return o;
  }
  stage::CacheStage<RibRoute>* Cache(const std::string& name) {
    auto* c = plumber.Make<stage::CacheStage<RibRoute>>(name);
    caches.push_back(c);
    return c;
  }
  // Adds (or replaces) one route and ends the batch.
  static void Add(OriginStage* o, const char* prefix, const char* via, const char* dev = "",
                  uint32_t metric = 0) {
    const RouteInput r = In(prefix, via, dev, metric);
    o->Add(r.network, r.nexthop, r.ifname.empty() ? Symbol() : Symbol::Intern(r.ifname), r.metric,
           TagSet());
    o->Push();
  }
  static void Delete(OriginStage* o, const char* prefix) {
    o->Delete(P(prefix));
    o->Push();
  }
  // Runs the loop until no work is left.
  void Run() {
    io.run();
    io.restart();
  }
  // Every cache is consistent with its upstream and saw no violation.
  void ExpectConsistent() {
    for (auto* c : caches) {
      EXPECT_EQ(c->Verify(), 0u) << c->name();
      for (const auto& v : c->violations()) ADD_FAILURE() << v;
    }
  }
};

}  // namespace sluice::rib::testing
