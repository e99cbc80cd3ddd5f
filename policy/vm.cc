#include "policy/vm.h"

#include <algorithm>
#include <limits>
#include <new>
#include <type_traits>

namespace sluice::policy {
namespace {

// Where LIST_ADD, LIST_DELETE and PREPEND build their results. A result lives until the STORE
// that follows it has copied it (the compiler always emits that STORE next).
struct Scratch {
  std::vector<uint32_t> communities;
  std::vector<uint64_t> ext_communities;
  std::vector<LargeCommunity> large_communities;
  std::vector<uint32_t> as_path;
};

Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

uint32_t AsU32(const Value& v) { return v.kind() == ValueKind::kU32 ? v.u32() : 0; }

template <typename T>
void AddMissing(std::span<const T> base, std::span<const T> extra, std::vector<T>* out) {
  out->assign(base.begin(), base.end());
  for (const T& x : extra) {
    if (std::find(out->begin(), out->end(), x) == out->end()) out->push_back(x);
  }
}

Value ListAdd(const Value& base, const Value& extra, Scratch& s) {
  switch (extra.kind()) {
    case ValueKind::kCommunities:
      AddMissing(
          base.kind() == ValueKind::kCommunities ? base.communities() : std::span<const uint32_t>(),
          extra.communities(), &s.communities);
      return Value::Communities(s.communities);
    case ValueKind::kExtCommunities:
      AddMissing(base.kind() == ValueKind::kExtCommunities ? base.ext_communities()
                                                           : std::span<const uint64_t>(),
                 extra.ext_communities(), &s.ext_communities);
      return Value::ExtCommunities(s.ext_communities);
    case ValueKind::kLargeCommunities:
      AddMissing(base.kind() == ValueKind::kLargeCommunities ? base.large_communities()
                                                             : std::span<const LargeCommunity>(),
                 extra.large_communities(), &s.large_communities);
      return Value::LargeCommunities(s.large_communities);
    default:
      return base;
  }
}

Value ListDelete(const Value& base, const Matcher& m, Scratch& s) {
  switch (base.kind()) {
    case ValueKind::kCommunities:
      s.communities.clear();
      for (uint32_t c : base.communities()) {
        if (!m.MatchCommunity(c)) s.communities.push_back(c);
      }
      return Value::Communities(s.communities);
    case ValueKind::kExtCommunities:
      s.ext_communities.clear();
      for (uint64_t c : base.ext_communities()) {
        if (!m.MatchExtCommunity(c)) s.ext_communities.push_back(c);
      }
      return Value::ExtCommunities(s.ext_communities);
    case ValueKind::kLargeCommunities:
      s.large_communities.clear();
      for (const LargeCommunity& c : base.large_communities()) {
        if (!m.MatchLargeCommunity(c)) s.large_communities.push_back(c);
      }
      return Value::LargeCommunities(s.large_communities);
    default:
      return base;  // nothing to delete from
  }
}

template <bool kTrace>
Result Run(const Program& p, VarRW& rw, std::vector<bool>* executed) {
  // Values are trivially copyable and destructible: the cache and the stack stay uninitialised
  // until written (`cached` says which cache slots hold a value).
  static_assert(std::is_trivially_copyable_v<Value> && std::is_trivially_destructible_v<Value>);
  alignas(Value) unsigned char cache_storage[kVarCount * sizeof(Value)];
  Value* cache = reinterpret_cast<Value*>(cache_storage);
  uint32_t cached = 0;
  auto load = [&](uint32_t var) -> const Value& {
    if (!((cached >> var) & 1u)) {
      new (&cache[var]) Value(rw.Read(static_cast<VarId>(var)));
      cached |= 1u << var;
    }
    return *std::launder(&cache[var]);
  };

  constexpr int kStack = 8;
  alignas(Value) unsigned char stack_storage[kStack * sizeof(Value)];
  Value* stack = reinterpret_cast<Value*>(stack_storage);
  int sp = 0;
  Result result;
  const Instruction* code = p.code.data();
  const size_t size = p.code.size();
  if constexpr (kTrace) executed->resize(size);
  size_t pc = 0;
  while (pc < size) {
    const Instruction& in = code[pc];
    if constexpr (kTrace) (*executed)[pc] = true;
    ++pc;
    switch (in.op) {
      case Op::kTest:
        if (!p.matchers[in.b]->Match(load(in.a))) pc = in.c;
        break;
      case Op::kLoad:
        new (&stack[sp++]) Value(load(in.a));
        break;
      case Op::kPush:
        new (&stack[sp++]) Value(p.constants[in.a]);
        break;
      case Op::kMatch:
        stack[sp - 1] = Value::Bool(p.matchers[in.a]->Match(stack[sp - 1]));
        break;
      case Op::kJumpIfFalse: {
        const Value& v = stack[--sp];
        if (v.kind() != ValueKind::kBool || !v.as_bool()) pc = in.a;
        break;
      }
      case Op::kJump:
        pc = in.a;
        break;
      case Op::kStore:
        rw.Write(static_cast<VarId>(in.a), stack[--sp]);
        cached &= ~(1u << in.a);
        result.modified = true;
        break;
      case Op::kAdd:
      case Op::kSubtract: {
        const uint64_t n = AsU32(stack[--sp]);
        const uint64_t v = AsU32(stack[sp - 1]);
        const uint64_t r = in.op == Op::kAdd
                               ? std::min<uint64_t>(v + n, std::numeric_limits<uint32_t>::max())
                               : (v > n ? v - n : 0);
        stack[sp - 1] = Value::U32(static_cast<uint32_t>(r));
        break;
      }
      case Op::kListAdd: {
        const Value extra = stack[--sp];
        stack[sp - 1] = ListAdd(stack[sp - 1], extra, ThreadScratch());
        break;
      }
      case Op::kListDelete:
        stack[sp - 1] = ListDelete(stack[sp - 1], *p.matchers[in.a], ThreadScratch());
        break;
      case Op::kPrepend: {
        const int count = static_cast<int>(AsU32(stack[--sp]));
        const uint32_t asn = AsU32(stack[--sp]);
        const Value& path = stack[sp - 1];
        Scratch& s = ThreadScratch();
        PrependAs(path.kind() == ValueKind::kAsPath ? path.as_path() : AsPathView(), asn, count,
                  &s.as_path);
        stack[sp - 1] = Value::Of(AsPathView(s.as_path));
        break;
      }
      case Op::kAccept:
        result.verdict = Verdict::kAccept;
        return result;
      case Op::kReject:
        result.verdict = Verdict::kReject;
        return result;
    }
  }
  result.verdict = Verdict::kReject;  // only a malformed program gets here
  return result;
}

}  // namespace

Result RunProgram(const Program& program, VarRW& rw) { return Run<false>(program, rw, nullptr); }

Result RunProgramTraced(const Program& program, VarRW& rw, std::vector<bool>* executed) {
  return Run<true>(program, rw, executed);
}

}  // namespace sluice::policy
