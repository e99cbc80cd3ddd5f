#pragma once
// Program: a compiled filter — one chain of policy statements plus the bank's default action —
// as a small stack-machine program (XORP's policy backend runs such a stack language).
//
// Instructions (operands a, b, c; the stack holds Values):
//
//   LOAD var            push the variable's value (read once per run, then cached)
//   PUSH k              push constant k
//   MATCH m             pop v; push bool(matcher m matches v)
//   JUMP_IF_FALSE t     pop a bool; jump to t when false
//   JUMP t              jump to t
//   TEST var m t        LOAD var; MATCH m; JUMP_IF_FALSE t in one step (the compiler's
//                       superinstruction for a match line; CompileOptions::fuse_tests)
//   STORE var           pop v; write it to the variable (the route is now modified)
//   ADD / SUBTRACT      pop n, pop v; push v+n / v-n on u32, saturating (none counts as 0)
//   LIST_ADD            pop list l, pop list v; push v followed by l's members not in v
//   LIST_DELETE m       pop list v; push v without the members matcher m matches
//   PREPEND             pop count, pop asn, pop path; push the path with asn prepended count
//                       times (none counts as the empty path)
//   ACCEPT / REJECT     stop with that verdict
//
// Programs are immutable after compilation and shared between threads.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "policy/matcher.h"
#include "policy/value.h"
#include "policy/var.h"

namespace sluice::policy {

// What a filter decides for a route.
enum class Verdict : uint8_t { kAccept, kReject };
std::string_view VerdictName(Verdict v);  // "accept", "reject"

enum class Op : uint8_t {
  kLoad,
  kPush,
  kMatch,
  kJumpIfFalse,
  kJump,
  kTest,
  kStore,
  kAdd,
  kSubtract,
  kListAdd,
  kListDelete,
  kPrepend,
  kAccept,
  kReject,
};
std::string_view OpName(Op op);

struct Instruction {
  Op op;
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t c = 0;
};

class Program {
 public:
  std::vector<Instruction> code;
  std::vector<Value> constants;
  std::vector<std::unique_ptr<Matcher>> matchers;
  // What each instruction came from ("upstream-in/bogons: med"), for the disassembly, and
  // which match line or action it implements (-1 for none): MatchKind / ActionKind values. The
  // .pol runner uses these with a traced run to check that every match and action was executed.
  std::vector<std::string> origins;
  std::vector<int8_t> match_kinds;
  std::vector<int8_t> action_kinds;
  int max_stack = 0;

  // Storage that constant views point into (deque: growing never moves old elements).
  std::deque<std::vector<uint32_t>> u32_lists;
  std::deque<std::vector<uint64_t>> u64_lists;
  std::deque<std::vector<LargeCommunity>> large_lists;
  std::deque<std::string> texts;

  // One instruction per line: "  12  TEST local-pref [med < 100] -> 15   ; p/t".
  std::string Disassemble() const;
};

}  // namespace sluice::policy
