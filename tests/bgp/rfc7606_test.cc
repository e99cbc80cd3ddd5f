// RFC 7606 table: each malformed UPDATE leads to the approach the RFC prescribes — session reset
// (with the NOTIFICATION of RFC 4271 §6.3), AFI/SAFI disable, treat-as-withdraw or attribute
// discard — and its NLRI end up announced or withdrawn accordingly.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bgp/wire/update_decoder.h"

namespace sluice::bgp {
namespace {

using Bytes8 = std::vector<uint8_t>;

Bytes8 A(uint8_t flags, uint8_t type, Bytes8 value) {
  Bytes8 out = {flags, type};
  if (flags & kFlagExtendedLength) out.push_back(uint8_t(value.size() >> 8));
  out.push_back(uint8_t(value.size()));
  out.insert(out.end(), value.begin(), value.end());
  return out;
}
Bytes8 Cat(std::initializer_list<Bytes8> parts) {
  Bytes8 out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

const Bytes8 kOrigin = A(0x40, 1, {0});
const Bytes8 kAsPath = A(0x40, 2, {2, 1, 0, 0, 0xfd, 0xe9});  // 65001
const Bytes8 kNextHop = A(0x40, 3, {192, 0, 2, 1});
const Bytes8 kNlri = {24, 10, 0, 1};                  // 10.0.1.0/24
const Bytes8 kV6Nlri = {32, 0x20, 0x01, 0x0d, 0xb8};  // 2001:db8::/32
const Bytes8 kV6NextHop = {0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
Bytes8 MpReach(Bytes8 nexthop, Bytes8 nlri, uint8_t afi = 2) {
  Bytes8 v = {0, afi, 1, uint8_t(nexthop.size())};
  v.insert(v.end(), nexthop.begin(), nexthop.end());
  v.push_back(0);
  v.insert(v.end(), nlri.begin(), nlri.end());
  return A(0x80, 14, v);
}

Bytes8 MpUnreach(Bytes8 nlri, uint8_t afi = 2) {
  Bytes8 v = {0, afi, 1};
  v.insert(v.end(), nlri.begin(), nlri.end());
  return A(0x80, 15, v);
}
// An AS_PATH (65001) whose Attribute Length (200) overruns the attribute list: what follows it
// cannot be told apart from its value.
const Bytes8 kOverrunningAsPath = {0x40, 2, 200, 2, 1, 0, 0, 0xfd, 0xe9};
const Bytes8 kTwoV6Nlri = {32, 0x20, 0x01, 0x0d, 0xb8, 48, 0x20, 0x01, 0x0d, 0xb8, 0, 1};

// Withdrawn Routes Length and Total Path Attribute Length are computed unless overridden.
Bytes8 Update(Bytes8 withdrawn, Bytes8 attrs, Bytes8 nlri, int wlen = -1, int alen = -1) {
  Bytes8 body;
  const int w = wlen >= 0 ? wlen : int(withdrawn.size());
  const int a = alen >= 0 ? alen : int(attrs.size());
  body.push_back(uint8_t(w >> 8));
  body.push_back(uint8_t(w));
  body.insert(body.end(), withdrawn.begin(), withdrawn.end());
  body.push_back(uint8_t(a >> 8));
  body.push_back(uint8_t(a));
  body.insert(body.end(), attrs.begin(), attrs.end());
  body.insert(body.end(), nlri.begin(), nlri.end());
  Bytes8 msg(16, 0xff);
  const size_t len = body.size() + 19;
  msg.push_back(uint8_t(len >> 8));
  msg.push_back(uint8_t(len));
  msg.push_back(2);
  msg.insert(msg.end(), body.begin(), body.end());
  return msg;
}

struct Case {
  std::string name;
  Bytes8 message;
  UpdateAction action;
  int announced;          // NLRI left announced
  int withdrawn;          // NLRI withdrawn (explicitly or by treat-as-withdraw)
  uint8_t subcode = 0;    // NOTIFICATION subcode for session reset / AFI-SAFI disable
  Bytes8 discarded = {};  // attribute types dropped
  bool external = false;  // eBGP session
  bool four_octet_as = true;
  uint32_t enforce_first_as = 0;  // SessionParams::enforce_first_as
};

std::vector<Case> Cases() {
  const Bytes8 good = Cat({kOrigin, kAsPath, kNextHop});
  using UA = UpdateAction;
  return {
      {"well-formed", Update({}, good, kNlri), UA::kNone, 1, 0},
      {"withdraw-only needs no attributes", Update(kNlri, {}, {}), UA::kNone, 0, 1},
      {"MP-only UPDATE needs no NEXT_HOP",
       Update({}, Cat({kOrigin, kAsPath, MpReach(kV6NextHop, kV6Nlri)}), {}), UA::kNone, 1, 0},
      // RFC 4271 §6.3 / RFC 7606 §4: lengths that overrun the message.
      {"Withdrawn Routes Length overruns", Update({}, good, kNlri, 200), UA::kSessionReset, 0, 0,
       update_error::kMalformedAttributeList},
      {"Total Path Attribute Length overruns", Update({}, good, kNlri, -1, 300), UA::kSessionReset,
       0, 0, update_error::kMalformedAttributeList},
      // RFC 7606 §4: an attribute overruns the attribute list; too few octets left.
      {"attribute overruns the attribute list",
       Update({}, Cat({kOrigin, kAsPath, Bytes8{0x40, 3, 9, 192, 0, 2, 1}}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"two stray octets after the last attribute", Update({}, Cat({good, Bytes8{0x40, 1}}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      // RFC 7606 §3(j): treat-as-withdraw needs MP_REACH_NLRI and MP_UNREACH_NLRI parsed; an
      // overrun that may have swallowed one resets the session (a lost MP_UNREACH_NLRI would
      // leave the routes it withdraws in place).
      {"attribute overrun before MP_REACH_NLRI could be parsed",
       Update({}, Cat({kOrigin, kOverrunningAsPath, kNextHop, MpReach(kV6NextHop, kV6Nlri)}),
              kNlri),
       UA::kSessionReset, 0, 0, update_error::kAttributeLengthError},
      {"attribute overrun before MP_UNREACH_NLRI could be parsed",
       Update({}, Cat({kOrigin, kOverrunningAsPath, MpUnreach(kTwoV6Nlri)}), {}), UA::kSessionReset,
       0, 0, update_error::kAttributeLengthError},
      {"attribute overrun before MP_UNREACH_NLRI, with IPv4 NLRI",
       Update({}, Cat({kOrigin, kOverrunningAsPath, kNextHop, MpUnreach(kTwoV6Nlri)}), kNlri),
       UA::kSessionReset, 0, 0, update_error::kAttributeLengthError},
      // RFC 4760 §7: an MP attribute that overruns, its family known and nothing else hidden
      // (too few octets left for another attribute, or the other MP attribute already parsed).
      {"MP_UNREACH_NLRI overrunning the attribute list disables its family",
       Update({}, Bytes8{0x80, 15, 10, 0, 2, 1, 32}, {}), UA::kAfiSafiDisable, 0, 0,
       update_error::kOptionalAttributeError},
      {"MP_UNREACH_NLRI overrunning after MP_REACH_NLRI disables its family",
       Update({},
              Cat({kOrigin, kAsPath, MpReach(kV6NextHop, kV6Nlri),
                   Bytes8{0x80, 15, 50, 0, 2, 1, 32, 0x20, 0x01, 0x0d, 0xb8}}),
              {}),
       UA::kAfiSafiDisable, 0, 0, update_error::kOptionalAttributeError},
      // RFC 7606 §5.2: an error other than attribute discard, path attributes, no reachable NLRI.
      {"malformed ORIGIN in an UPDATE without reachable NLRI",
       Update(kNlri, Cat({A(0x40, 1, {5}), kAsPath}), {}), UA::kSessionReset, 0, 0,
       update_error::kMalformedAttributeList},
      // RFC 7606 §3(g): repeated attributes.
      {"duplicate ORIGIN is discarded",
       Update({}, Cat({good, A(0x40, 1, {2})}), kNlri),
       UA::kAttributeDiscard,
       1,
       0,
       0,
       {1}},
      {"duplicate MP_REACH_NLRI resets the session",
       Update({}, Cat({good, MpReach(kV6NextHop, kV6Nlri), MpReach(kV6NextHop, kV6Nlri)}), {}),
       UA::kSessionReset, 0, 0, update_error::kMalformedAttributeList},
      // RFC 7606 §3(d): missing well-known mandatory attributes.
      {"missing ORIGIN", Update({}, Cat({kAsPath, kNextHop}), kNlri), UA::kTreatAsWithdraw, 0, 1},
      {"missing AS_PATH", Update({}, Cat({kOrigin, kNextHop}), kNlri), UA::kTreatAsWithdraw, 0, 1},
      {"missing NEXT_HOP", Update({}, Cat({kOrigin, kAsPath}), kNlri), UA::kTreatAsWithdraw, 0, 1},
      // §7.1 ORIGIN.
      {"ORIGIN length 2", Update({}, Cat({A(0x40, 1, {0, 0}), kAsPath, kNextHop}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"ORIGIN value 3", Update({}, Cat({A(0x40, 1, {3}), kAsPath, kNextHop}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      // §7.2 AS_PATH.
      {"AS_PATH unknown segment type",
       Update({}, Cat({kOrigin, A(0x40, 2, {7, 1, 0, 0, 0, 1}), kNextHop}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"AS_PATH segment of length 0",
       Update({}, Cat({kOrigin, A(0x40, 2, {2, 0}), kNextHop}), kNlri), UA::kTreatAsWithdraw, 0, 1},
      {"AS_PATH segment overruns",
       Update({}, Cat({kOrigin, A(0x40, 2, {2, 3, 0, 0, 0, 1}), kNextHop}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"AS_PATH with AS 0 (RFC 7607)",
       Update({}, Cat({kOrigin, A(0x40, 2, {2, 1, 0, 0, 0, 0}), kNextHop}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"confederation segment from an eBGP peer",
       Update({}, Cat({kOrigin, A(0x40, 2, {3, 1, 0, 0, 0xfd, 0xe9}), kNextHop}), kNlri),
       UA::kTreatAsWithdraw,
       0,
       1,
       0,
       {},
       /*external=*/true},
      // RFC 4271 §6.3 enforce-first-as, treat-as-withdraw per RFC 7606 §7.2.
      {"AS_PATH not starting with the peer's AS (enforce-first-as)",
       Update({}, good, kNlri),
       UA::kTreatAsWithdraw,
       0,
       1,
       0,
       {},
       /*external=*/true,
       true,
       /*enforce_first_as=*/65002},
      {"AS_PATH starting with an AS_SET (enforce-first-as)",
       Update({}, Cat({kOrigin, A(0x40, 2, {1, 1, 0, 0, 0xfd, 0xe9}), kNextHop}), kNlri),
       UA::kTreatAsWithdraw,
       0,
       1,
       0,
       {},
       /*external=*/true,
       true,
       /*enforce_first_as=*/65001},
      {"AS_PATH starting with the peer's AS (enforce-first-as)",
       Update({}, good, kNlri),
       UA::kNone,
       1,
       0,
       0,
       {},
       /*external=*/true,
       true,
       /*enforce_first_as=*/65001},
      {"confederation segment from an iBGP peer is fine",
       Update({}, Cat({kOrigin, A(0x40, 2, {3, 1, 0, 0, 0xfd, 0xe9}), kNextHop}), kNlri), UA::kNone,
       1, 0},
      // §7.3 NEXT_HOP (and RFC 4271 §6.3 semantic checks: the route is ignored).
      {"NEXT_HOP length 5", Update({}, Cat({kOrigin, kAsPath, A(0x40, 3, {1, 2, 3, 4, 5})}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"NEXT_HOP 0.0.0.0", Update({}, Cat({kOrigin, kAsPath, A(0x40, 3, {0, 0, 0, 0})}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"NEXT_HOP multicast", Update({}, Cat({kOrigin, kAsPath, A(0x40, 3, {224, 0, 0, 5})}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      // §3(c) wrong Optional/Transitive flags.
      {"ORIGIN flagged optional", Update({}, Cat({A(0xc0, 1, {0}), kAsPath, kNextHop}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"MED flagged transitive", Update({}, Cat({good, A(0xc0, 4, {0, 0, 0, 1})}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"COMMUNITIES flagged non-transitive",
       Update({}, Cat({good, A(0x80, 8, {0, 1, 0, 2})}), kNlri), UA::kTreatAsWithdraw, 0, 1},
      // §7.4-§7.10 lengths.
      {"MED length 3", Update({}, Cat({good, A(0x80, 4, {0, 0, 1})}), kNlri), UA::kTreatAsWithdraw,
       0, 1},
      {"LOCAL_PREF length 3 (iBGP)", Update({}, Cat({good, A(0x40, 5, {0, 0, 1})}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"LOCAL_PREF from an eBGP peer is discarded",
       Update({}, Cat({good, A(0x40, 5, {0, 0, 0, 100})}), kNlri),
       UA::kAttributeDiscard,
       1,
       0,
       0,
       {5},
       /*external=*/true},
      {"ATOMIC_AGGREGATE length 1",
       Update({}, Cat({good, A(0x40, 6, {1})}), kNlri),
       UA::kAttributeDiscard,
       1,
       0,
       0,
       {6}},
      {"AGGREGATOR length 7",
       Update({}, Cat({good, A(0xc0, 7, {0, 0, 0, 1, 10, 0, 0})}), kNlri),
       UA::kAttributeDiscard,
       1,
       0,
       0,
       {7}},
      {"COMMUNITIES length 5", Update({}, Cat({good, A(0xc0, 8, {0, 1, 0, 2, 3})}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"ORIGINATOR_ID length 5", Update({}, Cat({good, A(0x80, 9, {1, 2, 3, 4, 5})}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"CLUSTER_LIST length 6", Update({}, Cat({good, A(0x80, 10, {1, 2, 3, 4, 5, 6})}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"EXTENDED COMMUNITIES length 7", Update({}, Cat({good, A(0xc0, 16, Bytes8(7, 1))}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      {"LARGE_COMMUNITY length 11", Update({}, Cat({good, A(0xc0, 32, Bytes8(11, 1))}), kNlri),
       UA::kTreatAsWithdraw, 0, 1},
      // RFC 6793 §6: AS4_PATH errors are attribute discard (2-octet session).
      {"malformed AS4_PATH is discarded",
       Update({},
              Cat({kOrigin, A(0x40, 2, {2, 1, 0x5b, 0xa0}), kNextHop, A(0xc0, 17, {2, 2, 0, 0})}),
              kNlri),
       UA::kAttributeDiscard,
       1,
       0,
       0,
       {17},
       false,
       /*four_octet_as=*/false},
      // §7.11 MP_REACH_NLRI / MP_UNREACH_NLRI.
      {"MP_REACH_NLRI too short to read",
       Update({}, Cat({good, A(0x80, 14, {0, 2, 1, 16})}), kNlri), UA::kSessionReset, 0, 0,
       update_error::kOptionalAttributeError},
      {"MP_REACH_NLRI IPv6 nexthop of 5 octets",
       Update({}, Cat({kOrigin, kAsPath, kNextHop, MpReach({1, 2, 3, 4, 5}, kV6Nlri)}), kNlri),
       UA::kAfiSafiDisable, 1, 0, update_error::kOptionalAttributeError},
      {"MP_REACH_NLRI prefix /129",
       Update({}, Cat({kOrigin, kAsPath, kNextHop, MpReach(kV6NextHop, {129, 0x20})}), kNlri),
       UA::kAfiSafiDisable, 1, 0, update_error::kOptionalAttributeError},
      {"MP_UNREACH_NLRI prefix cut short",
       Update({}, Cat({A(0x80, 15, {0, 2, 1, 64, 0x20, 0x01})}), {}), UA::kAfiSafiDisable, 0, 0,
       update_error::kOptionalAttributeError},
      {"treat-as-withdraw covers MP_REACH_NLRI too",
       Update({}, Cat({A(0x40, 1, {5}), kAsPath, MpReach(kV6NextHop, kV6Nlri)}), {}),
       UA::kTreatAsWithdraw, 0, 1},
      {"MP_REACH_NLRI of an unsupported family is ignored",
       Update({}, Cat({good, A(0x80, 14, {0, 25, 65, 4, 1, 2, 3, 4, 0})}), kNlri), UA::kNone, 1, 0},
      // RFC 4271 §6.3: unrecognized well-known attribute; NLRI syntax.
      {"unrecognized well-known attribute", Update({}, Cat({good, A(0x40, 99, {1})}), kNlri),
       UA::kSessionReset, 0, 0, update_error::kUnrecognizedWellKnownAttribute},
      {"NLRI prefix /33", Update({}, good, Bytes8{33, 10, 0, 0, 0, 0}), UA::kSessionReset, 0, 0,
       update_error::kInvalidNetworkField},
      {"Withdrawn Routes prefix cut short", Update(Bytes8{24, 10, 0}, {}, {}), UA::kSessionReset, 0,
       0, update_error::kInvalidNetworkField},
  };
}

class Rfc7606Test : public ::testing::TestWithParam<Case> {};

TEST_P(Rfc7606Test, LeadsToTheApproachTheRfcPrescribes) {
  const Case& c = GetParam();
  SessionParams params;
  params.families.Add(kIPv6Unicast);
  params.external = c.external;
  params.four_octet_as = c.four_octet_as;
  params.enforce_first_as = c.enforce_first_as;
  AttributeStore store;
  UpdateDecoder decoder(params, &store);
  UpdateMessage m;
  decoder.Decode(c.message, &m);
  EXPECT_EQ(UpdateActionName(m.errors.action()), UpdateActionName(c.action)) << m.errors.reason;
  EXPECT_EQ(int(m.announced.size()), c.announced);
  EXPECT_EQ(int(m.withdrawn.size()), c.withdrawn);
  EXPECT_EQ(bool(m.attributes), c.announced > 0);
  if (c.action == UpdateAction::kSessionReset || c.action == UpdateAction::kAfiSafiDisable) {
    EXPECT_EQ(m.errors.notification.code, uint8_t(ErrorCode::kUpdateMessage));
    EXPECT_EQ(m.errors.notification.subcode, c.subcode) << m.errors.notification.ToString();
  }
  if (c.action == UpdateAction::kAfiSafiDisable) {
    EXPECT_TRUE(m.errors.disabled_families.Has(kIPv6Unicast));
  }
  EXPECT_EQ(m.errors.discarded, c.discarded);
  if (c.action != UpdateAction::kNone) {
    EXPECT_FALSE(m.errors.reason.empty());
  }
}

TEST(Rfc7606DataTest, UnrecognizedWellKnownAttributeNotificationCarriesTheAttribute) {
  AttributeStore store;
  UpdateDecoder decoder(SessionParams(), &store);
  UpdateMessage m;
  decoder.Decode(Update({}, Cat({kOrigin, kAsPath, kNextHop, A(0x40, 99, {7})}), kNlri), &m);
  EXPECT_EQ(m.errors.notification.data, (Bytes8{0x40, 99, 1, 7}));
}

TEST(Rfc7606DataTest, DuplicateKeepsTheFirstOccurrence) {
  AttributeStore store;
  UpdateDecoder decoder(SessionParams(), &store);
  UpdateMessage m;
  decoder.Decode(Update({}, Cat({kOrigin, kAsPath, kNextHop, A(0x40, 1, {2})}), kNlri), &m);
  ASSERT_TRUE(m.attributes);
  EXPECT_EQ(*m.attributes->origin, Origin::kIgp);
}

INSTANTIATE_TEST_SUITE_P(Table, Rfc7606Test, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           std::string n;
                           for (char ch : info.param.name) {
                             n += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace sluice::bgp
