#pragma once
// RibFixture: the Rib as the RIB process builds it, over a FakeFib, for the Rib-level tests.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <string>
#include <vector>

#include "rib/rib.h"
#include "tests/rib/rib_test_util.h"

namespace sluice::rib::testing {

// A Rib with cache stages after every stage, feeding one FakeFib (the FEA "fea").
struct RibFixture {
  boost::asio::io_context io;
  FakeFib fib{io};
  std::vector<std::string> violations;
  std::unique_ptr<Rib> rib;

  explicit RibFixture(FeaOutOptions fea = {}) {
    RibOptions options;
    options.fea = fea;
    options.insert_cache_stages = true;
    options.on_violation = [this](const std::string& v) { violations.push_back(v); };
    rib = std::make_unique<Rib>(io, &fib, options);
  }
  void Run() {
    io.run();
    io.restart();
  }
  // The FIB as "prefix protocol via/dev" lines.
  std::string Fib() const {
    std::string out;
    for (const auto& [p, r] : fib.fib) out += r.ToString() + "\n";
    return out;
  }
  void ExpectConsistent() {
    EXPECT_EQ(rib->network(net::Family::kIPv4).VerifyCaches(), 0u);
    EXPECT_EQ(rib->network(net::Family::kIPv6).VerifyCaches(), 0u);
    for (const auto& v : violations) ADD_FAILURE() << v;
    EXPECT_EQ(fib.errors, 0u) << "the FIB got an add of a present or a delete of an absent route";
  }
  void Interfaces() {
    InterfaceEvents* ev = rib->interface_events();
    ev->OnInterfaceAdded("eth0", true);
    ev->OnAddressAdded("eth0", A("10.0.0.1"), 24);
    ev->OnAddressAdded("eth0", A("2001:db8:1::1"), 64);
    ev->OnInterfaceAdded("eth1", true);
    ev->OnAddressAdded("eth1", A("10.0.1.1"), 24);
  }
};

}  // namespace sluice::rib::testing
