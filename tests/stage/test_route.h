#pragma once
// A minimal route and an origin stage for stage-framework tests.

#include <map>
#include <string>

#include "net/prefix.h"
#include "stage/stage.h"

namespace sluice::stage::testing {

struct TestRoute {
  net::Prefix network;
  int metric = 0;

  const net::Prefix& prefix() const { return network; }
  std::string ToString() const { return network.ToString() + " metric " + std::to_string(metric); }
  friend bool operator==(const TestRoute&, const TestRoute&) = default;
};

inline TestRoute R(const char* prefix, int metric = 0) {
  return TestRoute{net::Prefix::Parse(prefix).value(), metric};
}

// Where routes originate: stores them and answers lookups from its table.
class TestOrigin : public LinearStage<TestRoute> {
 public:
  using LinearStage::LinearStage;
  std::string_view kind() const override { return "Origin"; }

  void Add(const TestRoute& r) {
    auto it = table_.find(r.network);
    if (it != table_.end()) {
      TestRoute old = it->second;
      it->second = r;
      if (downstream_) downstream_->replace_route(old, r, this);
      return;
    }
    table_.emplace(r.network, r);
    if (downstream_) downstream_->add_route(r, this);
  }
  void Delete(const net::Prefix& p) {
    auto it = table_.find(p);
    if (it == table_.end()) return;
    TestRoute old = it->second;
    table_.erase(it);
    if (downstream_) downstream_->delete_route(old, this);
  }
  void Push() {
    if (downstream_) downstream_->push(this);
  }
  std::optional<TestRoute> lookup_route(const net::Prefix& p) const override {
    auto it = table_.find(p);
    if (it == table_.end()) return std::nullopt;
    return it->second;
  }

 private:
  std::map<net::Prefix, TestRoute> table_;
};

}  // namespace sluice::stage::testing
