#include "gtest/gtest.h"
#include "policy/compiler.h"
#include "policy/parser.h"
#include "policy/simple_route.h"
#include "policy/vm.h"

namespace sluice::policy {
namespace {

PolicyConfig Config(std::string_view text) {
  auto c = ParsePolicy(text, SourceLocation{"c.conf", 1, 1});
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? *c : PolicyConfig();
}

FilterSpec Chain(std::vector<std::string> names, Verdict d = Verdict::kAccept) {
  FilterSpec spec;
  spec.policies = std::move(names);
  spec.default_verdict = d;
  return spec;
}

constexpr std::string_view kPolicy = R"(
  prefix-list nets { 10.0.0.0/8 orlonger; }
  policy-statement p {
    term a { from { prefix-list nets; med < 10; } then { local-pref 200; accept; } }
    term b { from { community 65000:1; } then { med add 5; community delete [ 65000:* ]; } }
    term c { then { as-path prepend 65000 2; next policy; } }
  }
  policy-statement q { term r { from { med 5-100; } then { reject; } } }
)";

TEST(Compiler, DisassemblyShowsTheStackProgram) {
  PolicyConfig config = Config(kPolicy);
  CompileOptions unfused;
  unfused.fuse_tests = false;
  auto program = CompileProgram(config, Chain({"p", "q"}), unfused);
  ASSERT_TRUE(program.ok()) << program.status();
  const std::string text = (*program)->Disassemble();
  EXPECT_NE(text.find("LOAD network"), std::string::npos) << text;
  EXPECT_NE(text.find("MATCH [prefix-list nets]"), std::string::npos) << text;
  EXPECT_NE(text.find("JUMP_IF_FALSE"), std::string::npos) << text;
  EXPECT_NE(text.find("ADD"), std::string::npos) << text;
  EXPECT_NE(text.find("LIST_DELETE [community [1 patterns]]"), std::string::npos) << text;
  EXPECT_NE(text.find("PREPEND"), std::string::npos) << text;
  EXPECT_NE(text.find("; p/a: local-pref"), std::string::npos) << text;
  EXPECT_EQ(text.find("TEST"), std::string::npos) << text;
  auto fused = CompileProgram(config, Chain({"p", "q"}));
  ASSERT_TRUE(fused.ok());
  EXPECT_NE((*fused)->Disassemble().find("TEST network [prefix-list nets] else ->"),
            std::string::npos);
  EXPECT_LT((*fused)->code.size(), (*program)->code.size());
}

// The fused and the plain program agree on every route of a small grid.
TEST(Compiler, FusedAndPlainProgramsAgree) {
  PolicyConfig config = Config(kPolicy);
  CompileOptions plain;
  plain.fuse_tests = false;
  auto a = CompileProgram(config, Chain({"p", "q"}, Verdict::kReject));
  auto b = CompileProgram(config, Chain({"p", "q"}, Verdict::kReject), plain);
  ASSERT_TRUE(a.ok() && b.ok());
  for (const char* net : {"10.1.0.0/16", "11.0.0.0/8"}) {
    for (uint32_t med : {0u, 5u, 9u, 50u, 200u}) {
      for (bool community : {false, true}) {
        SimpleRoute r;
        r.network = *net::Prefix::Parse(net);
        r.med = med;
        if (community) r.communities = {(65000u << 16) | 1, (65001u << 16) | 1};
        SimpleRouteVarRW rw_a(r), rw_b(r);
        Result ra = RunProgram(**a, rw_a), rb = RunProgram(**b, rw_b);
        EXPECT_EQ(ra.verdict, rb.verdict) << net << " " << med;
        EXPECT_EQ(ra.modified, rb.modified);
        EXPECT_EQ(rw_a.route(), rw_b.route());
      }
    }
  }
}

TEST(Vm, ChainSemanticsOnOneRoute) {
  PolicyConfig config = Config(kPolicy);
  auto program = CompileProgram(config, Chain({"p", "q"}, Verdict::kAccept));
  ASSERT_TRUE(program.ok());
  SimpleRoute r;
  r.network = *net::Prefix::Parse("11.0.0.0/8");
  r.med = 50;
  r.communities = {(65000u << 16) | 1, (7u << 16) | 7};
  r.as_path = *AsPath::Parse("1");
  SimpleRouteVarRW rw(r);
  Result result = RunProgram(**program, rw);
  // p/b adds 5 to the MED (55) and deletes 65000:*; p/c prepends and skips to q; q rejects.
  EXPECT_EQ(result.verdict, Verdict::kReject);
  EXPECT_TRUE(result.modified);
  EXPECT_EQ(rw.route().med, 55u);
  EXPECT_EQ(rw.route().communities, (std::vector<uint32_t>{(7u << 16) | 7}));
  EXPECT_EQ(rw.route().as_path->ToString(), "65000 65000 1");
  // The input route is untouched (copy-on-write).
  EXPECT_EQ(r.med, 50u);
  EXPECT_EQ(r.communities.size(), 2u);
}

TEST(Vm, UnmodifiedRouteIsReportedSo) {
  PolicyConfig config = Config(kPolicy);
  auto program = CompileProgram(config, Chain({"q"}, Verdict::kAccept));
  ASSERT_TRUE(program.ok());
  SimpleRoute r;
  r.med = 1;
  SimpleRouteVarRW rw(r);
  Result result = RunProgram(**program, rw);
  EXPECT_TRUE(result.accepted());
  EXPECT_FALSE(result.modified);
  EXPECT_EQ(&rw.route(), &r);
}

// A VarRW that counts reads: the VM reads each variable once per run.
class CountingVarRW : public SimpleRouteVarRW {
 public:
  using SimpleRouteVarRW::SimpleRouteVarRW;
  Value Read(VarId id) override {
    ++reads[static_cast<int>(id)];
    return SimpleRouteVarRW::Read(id);
  }
  int reads[kVarCount] = {};
};

TEST(Vm, ReadsEachVariableOncePerRun) {
  PolicyConfig config = Config(R"(policy-statement p {
      term a { from { med 1; } then { tag 1; } }
      term b { from { med 2; } then { tag 2; } }
      term c { from { med 3; } then { med add 1; } }
      term d { from { med 4; } then { accept; } }
  })");
  auto program = CompileProgram(config, Chain({"p"}));
  ASSERT_TRUE(program.ok());
  SimpleRoute r;
  r.med = 3;
  CountingVarRW rw(r);
  RunProgram(**program, rw);
  // Once for the tests, once more after "med add" wrote it.
  EXPECT_EQ(rw.reads[static_cast<int>(VarId::kMed)], 2);
  EXPECT_EQ(rw.route().med, 4u);
}

// With intern ids the AS-path answers are cached per (matcher, id): the answers stay right, and
// a new filter's matcher does not see the old one's answers.
TEST(Vm, InternedAsPathsGiveTheSameAnswers) {
  PolicyConfig config = Config(R"(policy-statement p {
      term t { from { as-path ".* 3356 .*"; } then { tag 1; accept; } } })");
  auto first = CompileProgram(config, Chain({"p"}, Verdict::kReject));
  ASSERT_TRUE(first.ok());
  SimpleRoute through, around;
  through.as_path = *AsPath::Parse("1 3356 2");
  through.as_path_id = 7;
  around.as_path = *AsPath::Parse("1 174 2");
  around.as_path_id = 8;
  for (int round = 0; round < 3; ++round) {
    SimpleRouteVarRW a(through), b(around);
    EXPECT_TRUE(RunProgram(**first, a).accepted());
    EXPECT_FALSE(RunProgram(**first, b).accepted());
  }
  PolicyConfig inverse = Config(R"(policy-statement p {
      term t { from { as-path ".* 174 .*"; } then { tag 1; accept; } } })");
  auto second = CompileProgram(inverse, Chain({"p"}, Verdict::kReject));
  ASSERT_TRUE(second.ok());
  SimpleRouteVarRW a(through), b(around);
  EXPECT_FALSE(RunProgram(**second, a).accepted());
  EXPECT_TRUE(RunProgram(**second, b).accepted());
}

// Route origin validation (RFC 6811): drop invalid routes, prefer valid ones.
TEST(Vm, RpkiStatesSelectTheTerm) {
  PolicyConfig config = Config(R"(
    policy-statement rov {
      term invalid { from { rpki invalid; } then { reject; } }
      term valid { from { rpki valid; } then { local-pref 200; accept; } }
      term not-found { from { rpki not-found; } then { local-pref 50; } }
      term rest { then { accept; } }
    }
  )");
  auto program = CompileProgram(config, Chain({"rov"}, Verdict::kReject));
  ASSERT_TRUE(program.ok()) << program.status();
  EXPECT_NE((*program)->Disassemble().find("TEST rpki [rpki invalid]"), std::string::npos)
      << (*program)->Disassemble();
  auto run = [&](std::optional<RpkiValidation> state) {
    SimpleRoute route;
    route.network = *net::Prefix::Parse("192.0.2.0/24");
    route.local_pref = 100;
    if (state) route.rpki = static_cast<uint32_t>(*state);
    SimpleRouteVarRW rw(route);
    const Result result = RunProgram(**program, rw);
    return std::make_pair(result.accepted(), rw.route().local_pref.value_or(0));
  };
  EXPECT_EQ(run(RpkiValidation::kInvalid), std::make_pair(false, 100u));
  EXPECT_EQ(run(RpkiValidation::kValid), std::make_pair(true, 200u));
  EXPECT_EQ(run(RpkiValidation::kNotFound), std::make_pair(true, 50u));
  // A route that carries no state at all matches none of the three words.
  EXPECT_EQ(run(std::nullopt), std::make_pair(true, 100u));
}

// rpki is read-only, and only banks whose routes are validated can read it.
TEST(Compiler, RpkiOnlyWhereRoutesCarryIt) {
  PolicyConfig config = Config(R"(policy-statement rov {
  term invalid { from { rpki invalid; } then { reject; } }
})");
  EXPECT_TRUE(CheckPolicyConfig(config).ok());
  EXPECT_TRUE(VarReadOnly(VarId::kRpki));
  EXPECT_EQ(VarName(VarId::kRpki), "rpki");
  EXPECT_EQ(VarFromName("rpki"), VarId::kRpki);
  CompileOptions rib;
  rib.readable = VarSet().Add(VarId::kProtocol).Add(VarId::kNetwork).Add(VarId::kTag);
  rib.writable = VarSet().Add(VarId::kTag);
  auto r = CompileProgram(config, Chain({"rov"}), rib);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(std::string(r.status().message()),
            "c.conf:2:25: 'rpki' is not available in this filter: its routes have no rpki");
  // Even a bank that lists it as writable cannot be given a program that sets it: the language
  // has no such action.
  auto set = ParsePolicy("policy-statement p { term t { then { rpki valid; } } }",
                         SourceLocation{"c.conf", 1, 1});
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().message().substr(0, 36), "c.conf:1:38: 'rpki' cannot be set: a");
}

TEST(Compiler, ErrorsNameTheLine) {
  PolicyConfig config = Config(R"(prefix-list nets { 10.0.0.0/8; }
community-list wild { 65000:*; }
policy-statement p { term a { from { community nets; } } }
policy-statement q { term a { from { prefix-list nope; } } }
policy-statement r { term a { then { community set wild; } } }
policy-statement s { term a { then { as-path prepend 1; } } }
policy-statement t { term a { from { as-path-length > 3; } } }
)");
  auto p = CompileProgram(config, Chain({"p"}));
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(std::string(p.status().message()),
            "c.conf:3:48: 'nets' is a prefix-list (defined at c.conf:1:13), not a community-list");
  auto q = CompileProgram(config, Chain({"q"}));
  EXPECT_EQ(std::string(q.status().message()), "c.conf:4:50: unknown prefix-list 'nope'");
  auto r = CompileProgram(config, Chain({"r"}));
  EXPECT_EQ(std::string(r.status().message()),
            "c.conf:5:52: community-list 'wild' has wildcards or ranges; only delete takes "
            "patterns");
  // A RIB bank: no AS path to read or write.
  CompileOptions rib;
  rib.readable = VarSet().Add(VarId::kProtocol).Add(VarId::kNetwork).Add(VarId::kTag);
  rib.writable = VarSet().Add(VarId::kTag);
  auto s = CompileProgram(config, Chain({"s"}), rib);
  EXPECT_EQ(std::string(s.status().message()),
            "c.conf:6:38: 'as-path prepend' is not available in this filter: it cannot change "
            "as-path");
  auto t = CompileProgram(config, Chain({"t"}), rib);
  EXPECT_EQ(std::string(t.status().message()),
            "c.conf:7:38: 'as-path-length' is not available in this filter: its routes have no "
            "as-path");
  FilterSpec unknown = Chain({"zz"});
  unknown.where = SourceLocation{"router.conf", 12, 7};
  EXPECT_EQ(std::string(CompileProgram(config, unknown).status().message()),
            "router.conf:12:7: unknown policy-statement 'zz'");
  EXPECT_FALSE(CheckPolicyConfig(config).ok());
}

}  // namespace
}  // namespace sluice::policy
