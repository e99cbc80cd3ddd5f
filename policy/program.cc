#include "policy/program.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "policy/strings.h"

namespace sluice::policy {

std::string_view VerdictName(Verdict v) { return v == Verdict::kAccept ? "accept" : "reject"; }

std::string_view OpName(Op op) {
  static constexpr std::string_view kNames[] = {
      "LOAD", "PUSH",     "MATCH",    "JUMP_IF_FALSE", "JUMP",    "TEST",   "STORE",
      "ADD",  "SUBTRACT", "LIST_ADD", "LIST_DELETE",   "PREPEND", "ACCEPT", "REJECT"};
  return kNames[static_cast<int>(op)];
}

std::string Program::Disassemble() const {
  std::string out;
  for (size_t i = 0; i < code.size(); ++i) {
    const Instruction& in = code[i];
    std::string args;
    switch (in.op) {
      case Op::kLoad:
      case Op::kStore:
        args = std::string(VarName(static_cast<VarId>(in.a)));
        break;
      case Op::kPush:
        args = constants[in.a].ToString();
        break;
      case Op::kMatch:
      case Op::kListDelete:
        args = absl::StrCat("[", matchers[in.a]->Describe(), "]");
        break;
      case Op::kJumpIfFalse:
      case Op::kJump:
        args = absl::StrCat("-> ", in.a);
        break;
      case Op::kTest:
        args = absl::StrCat(Av(VarName(static_cast<VarId>(in.a))), " [", matchers[in.b]->Describe(),
                            "] else -> ", in.c);
        break;
      default:
        break;
    }
    std::string line = absl::StrFormat("%4d  %s %s", i, OpName(in.op), args);
    if (i < origins.size() && !origins[i].empty()) {
      line = absl::StrFormat("%-60s ; %s", line, origins[i]);
    }
    absl::StrAppend(&out, line, "\n");
  }
  return out;
}

}  // namespace sluice::policy
