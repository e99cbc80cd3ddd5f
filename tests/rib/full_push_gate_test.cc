// FullPushGate: a RIB that has just started lets the FEA sweep only once the protocols the FEA
// holds routes of have re-fed it, or its restart time has passed (DESIGN.md § Restarts).
#include "rib/service/full_push_gate.h"

#include <gtest/gtest.h>

#include <chrono>

namespace sluice::rib {
namespace {

using std::chrono::seconds;

TEST(FullPushGate, OpensWhenEveryProtocolTheFeaHoldsHasReFed) {
  boost::asio::io_context io;
  int opened = 0;
  FullPushGate gate(io, seconds(60), {}, [&] { ++opened; });
  gate.EndOfRib("connected");  // before the FEA answered: remembered
  gate.Expect({"connected", "ebgp", "static"});
  EXPECT_FALSE(gate.open());
  EXPECT_EQ(gate.Describe().substr(0, 26), "waiting for ebgp, static (");
  gate.EndOfRib("static");
  gate.EndOfRib("ospf");  // not one the FEA holds: changes nothing
  EXPECT_FALSE(gate.open());
  gate.EndOfRib("ebgp");
  EXPECT_TRUE(gate.open());
  EXPECT_EQ(opened, 1);
  // Later pushes (a restarted FEA) do not wait.
  gate.Expect({"ebgp"});
  EXPECT_TRUE(gate.open());
  EXPECT_EQ(opened, 1);
}

TEST(FullPushGate, AnEmptyFeaOpensAtOnce) {
  boost::asio::io_context io;
  int opened = 0;
  FullPushGate gate(io, seconds(60), {"static"}, [&] { ++opened; });
  gate.Expect({});
  EXPECT_TRUE(gate.open());
  EXPECT_EQ(opened, 1);
}

TEST(FullPushGate, RoutesOfUnknownOriginWaitForTheConfiguredProtocols) {
  boost::asio::io_context io;
  FullPushGate gate(io, seconds(60), {"static", "ebgp"}, [] {});
  gate.Expect({""});
  gate.EndOfRib("static");
  EXPECT_FALSE(gate.open());
  gate.EndOfRib("ebgp");
  EXPECT_TRUE(gate.open());
}

TEST(FullPushGate, TheRestartTimeEndsTheWait) {
  boost::asio::io_context io;
  int opened = 0;
  FullPushGate gate(io, seconds(1), {}, [&] { ++opened; });
  gate.Expect({"ebgp"});
  io.run_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(gate.open());
  io.restart();
  io.run();
  EXPECT_TRUE(gate.open());
  EXPECT_EQ(opened, 1);
}

}  // namespace
}  // namespace sluice::rib
