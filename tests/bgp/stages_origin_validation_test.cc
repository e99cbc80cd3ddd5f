// OriginValidation: each route leaves with its RFC 6811 state; a VRP change re-validates only
// the routes the changed VRPs cover, in the background, and the stream downstream stays
// consistent (a CacheStage checks every delete and replace against what was added) while
// routes keep coming.
#include <gtest/gtest.h>

#include "absl/strings/str_cat.h"
#include "bgp/rpki/origin_validator.h"
#include "bgp/stages/origin_validation.h"
#include "bgp/stages/peer_in.h"
#include "tests/bgp/stages_test_util.h"

namespace sluice::bgp {
namespace {

using rpki::RpkiState;
using testing::Attr;
using testing::P;

rpki::Vrp V(const char* prefix, int max_length, uint32_t asn) {
  return rpki::Vrp{P(prefix), static_cast<uint8_t>(max_length), asn};
}

class OriginValidationTest : public testing::StagesTest {
 protected:
  void SetUp() override {
    in_ = plumber_.Make<PeerIn>("PeerIn", &plumber_, &tables_, PeerIn::Options{});
    stage_ = plumber_.Make<OriginValidation>("OriginValidation", io_, &tables_, &vrps_, 65000);
    cache_ = Cache("check");
    cap_ = Capture("out", false);
    stage::Plumber::Plumb<BgpRoute>(in_, stage_);
    stage::Plumber::Plumb<BgpRoute>(stage_, cache_);
    stage::Plumber::Plumb<BgpRoute>(cache_, cap_);
    in_->SessionUp(sources_.Intern(testing::Source(1, "e", "10.0.0.1", 65001, false)));
  }
  // A route whose AS_PATH ends in `origin`.
  void Announce(const char* prefix, uint32_t origin) {
    in_->Announce(P(prefix), Attr().Path({65001, origin}).NextHop("10.0.0.1").In(store_));
  }
  std::optional<RpkiState> Downstream(const char* prefix) {
    const BgpRoute* r = cache_->sent(P(prefix));
    return r != nullptr ? r->rpki : std::nullopt;
  }
  // The VRP change as sluice-bgp makes it: note, apply, re-validate.
  void Change(const rpki::VrpDelta& delta) {
    std::vector<net::Prefix> prefixes;
    for (const auto& v : delta.added) prefixes.push_back(v.prefix);
    for (const auto& v : delta.removed) prefixes.push_back(v.prefix);
    stage_->Prepare(prefixes);
    vrps_.Apply(delta);
    stage_->Revalidate();
  }
  size_t Replaces() const {
    size_t n = 0;
    for (const std::string& line : cap_->trace()) n += line.starts_with("replace ");
    return n;
  }

  rpki::OriginValidator vrps_;
  RouteTableSet tables_;
  PeerIn* in_ = nullptr;
  OriginValidation* stage_ = nullptr;
  stage::CacheStage<BgpRoute>* cache_ = nullptr;
  stage::CaptureStage<BgpRoute>* cap_ = nullptr;
};

TEST_F(OriginValidationTest, EachRouteLeavesWithItsState) {
  vrps_.Apply({{V("10.0.0.0/8", 16, 7), V("11.0.0.0/8", 8, 0)}, {}});
  Announce("10.1.0.0/16", 7);      // covered, origin and length match
  Announce("10.1.1.0/24", 7);      // longer than maxLength
  Announce("10.2.0.0/16", 8);      // wrong origin
  Announce("11.0.0.0/8", 7);       // only an AS 0 VRP covers it
  Announce("12.0.0.0/8", 7);       // no VRP covers it
  in_->Announce(P("10.3.0.0/16"),  // ends in an AS_SET: origin NONE
                Attr().PathWithSet({65001, 7}, {7}).NextHop("10.0.0.1").In(store_));
  EXPECT_EQ(Downstream("10.1.0.0/16"), RpkiState::kValid);
  EXPECT_EQ(Downstream("10.1.1.0/24"), RpkiState::kInvalid);
  EXPECT_EQ(Downstream("10.2.0.0/16"), RpkiState::kInvalid);
  EXPECT_EQ(Downstream("11.0.0.0/8"), RpkiState::kInvalid);
  EXPECT_EQ(Downstream("12.0.0.0/8"), RpkiState::kNotFound);
  EXPECT_EQ(Downstream("10.3.0.0/16"), RpkiState::kInvalid);
  EXPECT_EQ(stage_->lookup_route(P("10.1.0.0/16"))->rpki, RpkiState::kValid);
  in_->Withdraw(P("10.1.1.0/24"));
  EXPECT_FALSE(cache_->sent(P("10.1.1.0/24")));
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

TEST_F(OriginValidationTest, AChangeRevalidatesOnlyWhatItCovers) {
  for (int i = 0; i < 50; ++i) Announce(("20." + std::to_string(i) + ".0.0/16").c_str(), 7);
  Announce("10.1.0.0/16", 7);
  Announce("10.1.2.0/24", 8);
  in_->Push();
  ASSERT_EQ(Downstream("10.1.0.0/16"), RpkiState::kNotFound);
  cap_->Note("a VRP for 10.0.0.0/8 up to /16, AS 7");
  Change({{V("10.0.0.0/8", 16, 7)}, {}});
  EXPECT_EQ(stage_->pending(), 2u);
  EXPECT_EQ(Downstream("10.1.0.0/16"), RpkiState::kNotFound);  // not before the walk
  EXPECT_EQ(stage_->lookup_route(P("10.1.0.0/16"))->rpki, RpkiState::kNotFound);
  RunLoop();
  EXPECT_EQ(Downstream("10.1.0.0/16"), RpkiState::kValid);
  EXPECT_EQ(Downstream("10.1.2.0/24"), RpkiState::kInvalid);
  EXPECT_EQ(Replaces(), 2u);  // the 50 routes it does not cover are not sent again
  EXPECT_EQ(stage_->counters().changed, 2u);
  cap_->Note("the VRP goes again");
  Change({{}, {V("10.0.0.0/8", 16, 7)}});
  RunLoop();
  EXPECT_EQ(Downstream("10.1.0.0/16"), RpkiState::kNotFound);
  EXPECT_EQ(Downstream("10.1.2.0/24"), RpkiState::kNotFound);
  EXPECT_EQ(Replaces(), 4u);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

// A change that comes in two parts (a VRP withdrawn in one batch, its replacement announced in
// the next) moves no route, even while the walk of an earlier change is running: it pauses
// until the last part is in.
TEST_F(OriginValidationTest, AChangeInPartsNeverFlaps) {
  vrps_.Apply({{V("10.1.0.0/16", 16, 7)}, {}});
  Announce("10.1.0.0/16", 7);
  for (int i = 0; i < 3000; ++i) {
    Announce(absl::StrCat("20.", i / 256, ".", i % 256, ".0/24").c_str(), 7);
  }
  ASSERT_EQ(Downstream("10.1.0.0/16"), RpkiState::kValid);
  const size_t seen = cap_->trace().size();
  Change({{V("20.0.0.0/8", 24, 7)}, {}});  // 3000 routes to re-validate: several slices
  Poll(1);
  ASSERT_TRUE(stage_->revalidating());
  const rpki::VrpDelta part1{{}, {V("10.1.0.0/16", 16, 7)}};
  const rpki::VrpDelta part2{{V("10.1.0.0/16", 24, 7)}, {}};
  stage_->Prepare({part1.removed[0].prefix});
  vrps_.Apply(part1);
  RunLoop();
  stage_->Prepare({part2.added[0].prefix});
  vrps_.Apply(part2);
  stage_->Revalidate();
  RunLoop();
  for (size_t i = seen; i < cap_->trace().size(); ++i) {
    EXPECT_EQ(cap_->trace()[i].find("10.1.0.0/16"), std::string::npos) << cap_->trace()[i];
  }
  EXPECT_EQ(Replaces(), 3000u);
  EXPECT_EQ(stage_->pending(), 0u);
  EXPECT_EQ(Downstream("10.1.0.0/16"), RpkiState::kValid);
}

// Routes that change while their re-validation is pending: every delete and replace downstream
// carries the state downstream has, and the end state is the new set's.
TEST_F(OriginValidationTest, RoutesChangingWhilePendingStayConsistent) {
  Announce("10.1.0.0/16", 7);
  Announce("10.2.0.0/16", 7);
  Announce("10.3.0.0/16", 7);
  Change({{V("10.0.0.0/8", 16, 7)}, {}});
  ASSERT_EQ(stage_->pending(), 3u);
  in_->Withdraw(P("10.1.0.0/16"));  // deleted with the state it went down with (not-found)
  Announce("10.2.0.0/16", 9);       // replaced: the old one as sent, the new one as it is now
  Announce("10.4.0.0/16", 7);       // new: valid at once
  EXPECT_TRUE(violations_.empty()) << violations_.front();
  EXPECT_EQ(Downstream("10.2.0.0/16"), RpkiState::kInvalid);
  EXPECT_EQ(Downstream("10.4.0.0/16"), RpkiState::kValid);
  RunLoop();
  EXPECT_EQ(stage_->pending(), 0u);
  EXPECT_FALSE(cache_->sent(P("10.1.0.0/16")));
  EXPECT_EQ(Downstream("10.2.0.0/16"), RpkiState::kInvalid);
  EXPECT_EQ(Downstream("10.3.0.0/16"), RpkiState::kValid);
  EXPECT_EQ(Downstream("10.4.0.0/16"), RpkiState::kValid);
  EXPECT_TRUE(violations_.empty()) << violations_.front();
}

}  // namespace
}  // namespace sluice::bgp
