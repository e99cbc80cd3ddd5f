#include "policy/as_path_regex.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::policy {
namespace {

struct Node {
  enum class Kind { kSym, kEmpty, kConcat, kAlt, kStar, kPlus, kOpt, kRepeat };
  Kind kind;
  std::vector<int> kids;
  int pred = -1;         // kSym: index into the predicate list
  int min = 0, max = 0;  // kRepeat; max -1 = unbounded
};

struct ParseError {
  size_t offset;
  std::string message;
};

}  // namespace

// Parses the text into a tree, then builds the position automaton.
class AsPathRegexBuilder {
 public:
  explicit AsPathRegexBuilder(std::string_view text) : text_(text) {}

  absl::StatusOr<AsPathRegex> Build(size_t* error_offset) {
    AsPathRegex re;
    re.text_ = std::string(text_);
    re_ = &re;
    SkipSpace();
    if (Peek() == '^') ++pos_;
    int root = ParseAlt();
    SkipSpace();
    if (!error_ && pos_ < text_.size()) {
      Fail(pos_, text_[pos_] == ')' ? "unbalanced ')'" : "unexpected character");
    }
    if (!error_) {
      Info info = Visit(root);
      if (!error_) Finish(info);
    }
    if (error_) {
      if (error_offset) *error_offset = error_->offset;
      return absl::InvalidArgumentError(
          absl::StrFormat("bad AS-path regular expression \"%s\": %s at offset %d", text_,
                          error_->message, error_->offset));
    }
    return re;
  }

 private:
  struct Info {
    bool nullable = true;
    std::vector<int> first, last;
  };

  char Peek() const { return pos_ < text_.size() ? text_[pos_] : '\0'; }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
  }
  void Fail(size_t at, std::string message) {
    if (!error_) error_ = ParseError{at, std::move(message)};
  }
  int Add(Node n) {
    nodes_.push_back(std::move(n));
    return static_cast<int>(nodes_.size()) - 1;
  }
  bool AtEndMarker() {
    // '$' is allowed only as the last non-space character.
    if (Peek() != '$') return false;
    size_t p = pos_ + 1;
    while (p < text_.size() && (text_[p] == ' ' || text_[p] == '\t')) ++p;
    if (p != text_.size()) {
      Fail(pos_, "'$' is allowed only at the end");
      return false;
    }
    pos_ = text_.size();
    return true;
  }

  int ParseAlt() {
    std::vector<int> alts{ParseConcat()};
    while (!error_ && Peek() == '|') {
      ++pos_;
      alts.push_back(ParseConcat());
    }
    if (alts.size() == 1) return alts[0];
    return Add(Node{Node::Kind::kAlt, alts});
  }

  int ParseConcat() {
    std::vector<int> seq;
    while (!error_) {
      SkipSpace();
      const char c = Peek();
      if (c == '\0' || c == '|' || c == ')' || AtEndMarker()) break;
      seq.push_back(ParseRepeat());
    }
    if (seq.empty()) return Add(Node{Node::Kind::kEmpty, {}});
    if (seq.size() == 1) return seq[0];
    return Add(Node{Node::Kind::kConcat, seq});
  }

  int ParseRepeat() {
    int atom = ParseAtom();
    int operators = 0;
    while (!error_) {
      const char c = Peek();
      if ((c == '*' || c == '+' || c == '?' || c == '{') && ++operators > kMaxDepth) {
        Fail(pos_, "too many repetition operators in a row");
        break;
      }
      if (c == '*' || c == '+' || c == '?') {
        ++pos_;
        atom = Add(Node{c == '*'   ? Node::Kind::kStar
                        : c == '+' ? Node::Kind::kPlus
                                   : Node::Kind::kOpt,
                        {atom}});
      } else if (c == '{') {
        const size_t start = pos_++;
        int min = 0, max = 0;
        if (!ParseInt(&min)) return Fail(start, "expected a count after '{'"), atom;
        max = min;
        if (Peek() == ',') {
          ++pos_;
          if (Peek() == '}') {
            max = -1;
          } else if (!ParseInt(&max)) {
            return Fail(pos_, "expected a count after ','"), atom;
          }
        }
        if (Peek() != '}') return Fail(pos_, "expected '}'"), atom;
        ++pos_;
        if (min > 255 || max > 255 || (max >= 0 && max < min)) {
          return Fail(start, "repetition counts must be 0..255 with m <= n"), atom;
        }
        Node n{Node::Kind::kRepeat, {atom}};
        n.min = min;
        n.max = max;
        atom = Add(n);
      } else {
        break;
      }
    }
    return atom;
  }

  bool ParseInt(int* out) {
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    if (pos_ == start || pos_ - start > 3) return false;
    return absl::SimpleAtoi(absl::string_view(text_.data() + start, pos_ - start), out);
  }

  bool ParseAsn(uint32_t* out) {
    const size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
    if (pos_ == start) {
      Fail(start, "expected an AS number");
      return false;
    }
    if (pos_ - start > 10 ||
        !absl::SimpleAtoi(absl::string_view(text_.data() + start, pos_ - start), out)) {
      Fail(start, "AS number out of range (0..4294967295)");
      return false;
    }
    return true;
  }

  // N or N-M into ranges_.
  bool ParseRangeInto() {
    const size_t start = pos_;
    uint32_t lo, hi;
    if (!ParseAsn(&lo)) return false;
    hi = lo;
    if (Peek() == '-') {
      ++pos_;
      if (!ParseAsn(&hi)) return false;
      if (hi < lo) {
        Fail(start, "empty AS range (low above high)");
        return false;
      }
    }
    re_->ranges_.push_back({lo, hi});
    return true;
  }

  int ParseAtom() {
    SkipSpace();
    const size_t start = pos_;
    const char c = Peek();
    if (c == '(') {
      if (depth_ >= kMaxDepth) {
        Fail(pos_, "parentheses nested too deeply");
        return Add(Node{Node::Kind::kEmpty, {}});
      }
      ++pos_;
      ++depth_;
      int inner = ParseAlt();
      --depth_;
      SkipSpace();
      if (Peek() != ')') {
        Fail(pos_, "expected ')'");
        return inner;
      }
      ++pos_;
      return inner;
    }
    AsPathRegex::Pred pred;
    pred.first_range = static_cast<uint32_t>(re_->ranges_.size());
    if (c == '.') {
      ++pos_;
    } else if (c == '[') {
      ++pos_;
      if (Peek() == '^') {
        pred.negated = true;
        ++pos_;
      }
      while (!error_) {
        SkipSpace();
        if (Peek() == ']') break;
        if (Peek() == '\0') {
          Fail(start, "missing ']'");
          break;
        }
        ParseRangeInto();
      }
      ++pos_;
      pred.range_count = static_cast<uint32_t>(re_->ranges_.size()) - pred.first_range;
      if (pred.range_count == 0 && !error_) Fail(start, "empty '[]'");
    } else if (c >= '0' && c <= '9') {
      ParseRangeInto();
      pred.range_count = 1;
    } else {
      Fail(start,
           c == '\0' ? "unexpected end" : absl::StrCat("unexpected '", std::string(1, c), "'"));
      return Add(Node{Node::Kind::kEmpty, {}});
    }
    re_->preds_.push_back(pred);  // a template: Visit copies it per position
    Node n{Node::Kind::kSym, {}};
    n.pred = static_cast<int>(re_->preds_.size()) - 1;
    return Add(n);
  }

  // Glushkov construction; each visit of a symbol makes a new position. Repetitions of parts
  // that make no position ("(){255}") are visited too, so the visits are counted as well.
  Info Visit(int index) {
    Info info;
    if (error_) return info;
    if (++visits_ > kMaxVisits) {
      Fail(0, absl::StrCat("expression too large (more than ", kMaxVisits,
                           " parts after expanding repetitions)"));
      return info;
    }
    const Node& n = nodes_[index];
    switch (n.kind) {
      case Node::Kind::kEmpty:
        break;
      case Node::Kind::kSym: {
        if (static_cast<int>(positions_.size()) >= AsPathRegex::kMaxPositions) {
          Fail(0, absl::StrCat("expression too large (more than ", AsPathRegex::kMaxPositions,
                               " positions after expanding repetitions)"));
          break;
        }
        const int p = static_cast<int>(positions_.size());
        positions_.push_back(n.pred);
        follow_.emplace_back();
        info.nullable = false;
        info.first = {p};
        info.last = {p};
        break;
      }
      case Node::Kind::kConcat:
        for (int kid : n.kids) info = Concat(std::move(info), Visit(kid));
        break;
      case Node::Kind::kAlt:
        info.nullable = false;
        for (int kid : n.kids) {
          Info k = Visit(kid);
          info.nullable |= k.nullable;
          info.first.insert(info.first.end(), k.first.begin(), k.first.end());
          info.last.insert(info.last.end(), k.last.begin(), k.last.end());
        }
        break;
      case Node::Kind::kStar:
      case Node::Kind::kPlus:
      case Node::Kind::kOpt: {
        info = Visit(n.kids[0]);
        if (n.kind != Node::Kind::kOpt) Loop(info);
        if (n.kind != Node::Kind::kPlus) info.nullable = true;
        break;
      }
      case Node::Kind::kRepeat: {
        for (int i = 0; i < n.min && !error_; ++i) info = Concat(std::move(info), Visit(n.kids[0]));
        if (n.max < 0) {
          Info star = Visit(n.kids[0]);
          Loop(star);
          star.nullable = true;
          info = Concat(std::move(info), std::move(star));
        } else {
          for (int i = n.min; i < n.max && !error_; ++i) {
            Info opt = Visit(n.kids[0]);
            opt.nullable = true;
            info = Concat(std::move(info), std::move(opt));
          }
        }
        break;
      }
    }
    return info;
  }

  void Loop(const Info& info) {
    for (int p : info.last)
      follow_[p].insert(follow_[p].end(), info.first.begin(), info.first.end());
  }

  Info Concat(Info a, Info b) {
    for (int p : a.last) follow_[p].insert(follow_[p].end(), b.first.begin(), b.first.end());
    Info r;
    r.nullable = a.nullable && b.nullable;
    r.first = a.first;
    if (a.nullable) r.first.insert(r.first.end(), b.first.begin(), b.first.end());
    r.last = b.last;
    if (b.nullable) r.last.insert(r.last.end(), a.last.begin(), a.last.end());
    return r;
  }

  void Finish(const Info& root) {
    AsPathRegex& re = *re_;
    const int count = static_cast<int>(positions_.size());
    re.words_ = std::max(1, (count + 63) / 64);
    std::vector<AsPathRegex::Pred> templates = std::move(re.preds_);
    re.preds_.clear();
    for (int t : positions_) re.preds_.push_back(templates[t]);
    auto to_bits = [&](const std::vector<int>& list, uint64_t* out) {
      for (int p : list) out[p / 64] |= uint64_t{1} << (p % 64);
    };
    re.first_.assign(re.words_, 0);
    re.last_.assign(re.words_, 0);
    re.follow_.assign(static_cast<size_t>(count) * re.words_, 0);
    to_bits(root.first, re.first_.data());
    to_bits(root.last, re.last_.data());
    for (int p = 0; p < count; ++p)
      to_bits(follow_[p], &re.follow_[static_cast<size_t>(p) * re.words_]);
    re.nullable_ = root.nullable;
    re.BuildTables();
  }

  std::string_view text_;
  static constexpr int kMaxDepth = 64;  // keeps the recursion of parsing and Visit bounded
  // Visits of the tree: far above what kMaxPositions positions need, far below what nested
  // repetitions of empty parts would take ((){255} nested five deep: 255^5).
  static constexpr int kMaxVisits = 1 << 18;
  size_t pos_ = 0;
  int visits_ = 0;
  int depth_ = 0;
  std::optional<ParseError> error_;
  std::vector<Node> nodes_;
  AsPathRegex* re_ = nullptr;
  std::vector<int> positions_;            // position -> predicate template
  std::vector<std::vector<int>> follow_;  // position -> following positions
};

absl::StatusOr<AsPathRegex> AsPathRegex::Compile(std::string_view text, size_t* error_offset) {
  return AsPathRegexBuilder(text).Build(error_offset);
}

bool AsPathRegex::Accepts(const Pred& p, uint32_t asn) const {
  if (p.range_count == 0) return !p.negated;
  bool in = false;
  for (uint32_t i = 0; i < p.range_count; ++i) {
    const Range& r = ranges_[p.first_range + i];
    if (asn >= r.lo && asn <= r.hi) {
      in = true;
      break;
    }
  }
  return in != p.negated;
}

int AsPathRegex::ClassOf(uint32_t asn) const {
  if (asn < 65536 && !block_class_.empty()) {
    const uint8_t c = block_class_[asn >> 4];
    if (c != 255) return c;
  }
  // The number of edges <= asn, by a branch-free binary search.
  const size_t n = edges_.size();
  if (n == 0) return 0;
  const uint32_t* base = edges_.data();
  size_t len = n;
  while (len > 1) {
    const size_t half = len / 2;
    base = base[half] <= asn ? base + half : base;
    len -= half;
  }
  return static_cast<int>(base - edges_.data()) + (*base <= asn ? 1 : 0);
}

void AsPathRegex::BuildTables() {
  BuildClasses();
  BuildClassMasks();
  BuildDfa();
}

void AsPathRegex::BuildClasses() {
  // Class edges: every range's low end and one past its high end.
  for (const Range& r : ranges_) {
    if (r.lo != 0) edges_.push_back(r.lo);
    if (r.hi != UINT32_MAX) edges_.push_back(r.hi + 1);
  }
  std::sort(edges_.begin(), edges_.end());
  edges_.erase(std::unique(edges_.begin(), edges_.end()), edges_.end());
  const int classes = static_cast<int>(edges_.size()) + 1;
  if (classes < 255) {
    std::vector<uint8_t> table(65536 / 16);  // filled while block_class_ is still empty
    for (uint32_t block = 0; block < 65536 / 16; ++block) {
      const int first = ClassOf(block * 16), last = ClassOf(block * 16 + 15);
      table[block] = static_cast<uint8_t>(first == last ? first : 255);
    }
    block_class_ = std::move(table);
  }
}

void AsPathRegex::BuildClassMasks() {
  // Positions copy the predicate of the atom they came from: each distinct predicate is tested
  // once per class (a repeated "[1 3 5 ...]{255}" has one predicate of many ranges).
  const int classes = static_cast<int>(edges_.size()) + 1;
  const int positions = static_cast<int>(preds_.size());
  std::vector<int> distinct_of(positions);
  std::vector<Pred> distinct;
  std::map<std::tuple<uint32_t, uint32_t, bool>, int> index;
  for (int p = 0; p < positions; ++p) {
    const Pred& pred = preds_[p];
    auto [it, added] = index.emplace(
        std::make_tuple(pred.first_range, pred.range_count, pred.negated), distinct.size());
    if (added) distinct.push_back(pred);
    distinct_of[p] = it->second;
  }
  class_masks_.assign(static_cast<size_t>(classes) * words_, 0);
  std::vector<char> accepts(distinct.size());
  for (int c = 0; c < classes; ++c) {
    const uint32_t representative = c == 0 ? 0 : edges_[c - 1];
    for (size_t d = 0; d < distinct.size(); ++d) accepts[d] = Accepts(distinct[d], representative);
    for (int p = 0; p < positions; ++p) {
      if (accepts[distinct_of[p]]) {
        class_masks_[static_cast<size_t>(c) * words_ + p / 64] |= uint64_t{1} << (p % 64);
      }
    }
  }
}

void AsPathRegex::BuildDfa() {
  // Subset construction over the classes; state 0 is the start (nothing read yet). Each step
  // costs the set bits of its state times the words of a set, and a lookup of the state it
  // reaches (about kLookupWork compares of sets); past kMaxDfaWork of those (or kMaxDfaStates
  // states) the position automaton runs instead.
  constexpr int kLookupWork = 16;
  const int classes = static_cast<int>(edges_.size()) + 1;
  std::map<std::vector<uint64_t>, int32_t> ids;
  std::vector<std::vector<uint64_t>> sets{std::vector<uint64_t>(words_, 0)};
  dfa_accepting_.push_back(nullable_);
  uint64_t work = 0;
  auto give_up = [&] {
    dfa_.clear();
    dfa_accepting_.clear();
  };
  std::vector<uint64_t> state(words_);
  for (size_t s = 0; s < sets.size(); ++s) {
    int bits = 0;
    for (uint64_t w : sets[s]) bits += __builtin_popcountll(w);
    work += static_cast<uint64_t>(classes) * (bits + kLookupWork) * words_;
    if (work > kMaxDfaWork) return give_up();
    for (int c = 0; c < classes; ++c) {
      state = sets[s];
      bool at_start = s == 0;
      Step(state.data(), &at_start, c);
      int32_t target = -1;
      if (std::any_of(state.begin(), state.end(), [](uint64_t w) { return w != 0; })) {
        auto it = ids.find(state);
        if (it == ids.end()) {
          if (sets.size() >= kMaxDfaStates ||
              sets.size() * static_cast<size_t>(classes) > (size_t{1} << 21)) {
            return give_up();
          }
          it = ids.emplace(state, static_cast<int32_t>(sets.size())).first;
          sets.push_back(state);
          dfa_accepting_.push_back(Accepting(state.data(), false));
        }
        target = it->second;
      }
      dfa_.resize(std::max(dfa_.size(), (s + 1) * classes), -1);
      dfa_[s * classes + c] = target;
    }
  }
}

void AsPathRegex::Step(uint64_t* state, bool* at_start, int cls) const {
  uint64_t next[kMaxPositions / 64];
  if (*at_start) {
    std::memcpy(next, first_.data(), sizeof(uint64_t) * words_);
  } else {
    std::memset(next, 0, sizeof(uint64_t) * words_);
  }
  for (int w = 0; w < words_; ++w) {
    for (uint64_t bits = state[w]; bits != 0; bits &= bits - 1) {
      const int p = w * 64 + __builtin_ctzll(bits);
      const uint64_t* f = &follow_[static_cast<size_t>(p) * words_];
      for (int k = 0; k < words_; ++k) next[k] |= f[k];
    }
  }
  const uint64_t* accept = &class_masks_[static_cast<size_t>(cls) * words_];
  for (int w = 0; w < words_; ++w) state[w] = next[w] & accept[w];
  *at_start = false;
}

bool AsPathRegex::Accepting(const uint64_t* state, bool at_start) const {
  if (at_start) return nullable_;
  for (int w = 0; w < words_; ++w) {
    if (state[w] & last_[w]) return true;
  }
  return false;
}

// for_each_symbol(f) calls f(asn) for each AS number and stops when f returns false.
template <typename Symbols>
bool AsPathRegex::Run(const Symbols& for_each_symbol) const {
  if (!dfa_accepting_.empty()) {
    const size_t classes = edges_.size() + 1;
    int32_t s = 0;
    for_each_symbol([&](uint32_t asn) {
      s = dfa_[static_cast<size_t>(s) * classes + ClassOf(asn)];
      return s >= 0;
    });
    return s >= 0 && dfa_accepting_[s];
  }
  uint64_t state[kMaxPositions / 64];
  std::memset(state, 0, sizeof(uint64_t) * words_);
  bool at_start = true;
  bool alive = true;
  for_each_symbol([&](uint32_t asn) {
    Step(state, &at_start, ClassOf(asn));
    alive = std::any_of(state, state + words_, [](uint64_t w) { return w != 0; });
    return alive;
  });
  return alive && Accepting(state, at_start);
}

bool AsPathRegex::Matches(std::span<const uint32_t> symbols) const {
  return Run([&](auto&& f) {
    for (uint32_t asn : symbols) {
      if (!f(asn)) return;
    }
  });
}

bool AsPathRegex::Matches(const AsPathView& path) const {
  return Run([&](auto&& f) {
    bool go = true;
    path.ForEachSegment([&](const AsSegment& s) {
      for (size_t i = 0; go && i < s.asns.size(); ++i) go = f(s.asns[i]);
    });
  });
}

}  // namespace sluice::policy
