#pragma once
// AS-path regular expressions over AS numbers (Junos style): the alphabet is the AS numbers of
// the path, not its characters, so "174" never matches inside "1740".
//
//   N          the AS number N                 .        any one AS number
//   N-M        any AS number in N..M           [N P-Q]  any listed number or range; [^...] none
//   (R)        grouping                        R|S      either
//   R*  R+  R?  R{m}  R{m,}  R{m,n}            repetition (n at most 255)
//   ^ $        accepted at the start / end and ignored: an expression always matches the WHOLE
//              path, so write ".* 3356 .*" for "passes through 3356" and "65001 .*" for "learnt
//              from 65001".
//
// The path's symbols are the ASNs of every segment in order (AS_SET and confederation members
// included), as AsPathView::Symbols gives them. An empty expression matches only the empty path.
//
// Engine: the expression compiles once into a position (Glushkov) automaton without epsilon
// moves. The AS numbers split into classes that every predicate treats alike (the edges of all
// numbers and ranges in the expression), and the automaton is determinised over those classes
// into a DFA table up front (at most kMaxDfaStates states, built in at most kMaxDfaWork steps; a
// larger one runs the position automaton bit-parallel instead). Matching is then one binary
// search over the class edges and one table lookup per AS number, without allocation
// (bench/policy/README.md compares it with std::regex on the textual path).

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "policy/as_path.h"

namespace sluice::policy {

class AsPathRegex {
 public:
  static constexpr int kMaxPositions = 1024;
  static constexpr int kMaxDfaStates = 4096;
  // Word operations the DFA construction may take (some tens of milliseconds).
  static constexpr uint64_t kMaxDfaWork = uint64_t{1} << 24;

  // Errors (InvalidArgument): what is wrong; *error_offset (when given) is set to the offset in
  // `text` of the offending character.
  static absl::StatusOr<AsPathRegex> Compile(std::string_view text, size_t* error_offset = nullptr);

  bool Matches(const AsPathView& path) const;
  bool Matches(std::span<const uint32_t> symbols) const;
  const std::string& text() const { return text_; }
  int positions() const { return static_cast<int>(preds_.size()); }
  // Number of DFA states, 0 when the expression runs as a position automaton.
  int dfa_states() const { return static_cast<int>(dfa_accepting_.size()); }

 private:
  struct Range {
    uint32_t lo, hi;
  };
  struct Pred {  // which AS numbers a position accepts
    uint32_t first_range = 0;
    uint32_t range_count = 0;  // 0 with !negated: any AS
    bool negated = false;
  };
  friend class AsPathRegexBuilder;

  bool Accepts(const Pred& p, uint32_t asn) const;
  int ClassOf(uint32_t asn) const;
  // Builds the class edges and masks, then the DFA (called once by the builder).
  void BuildTables();
  void BuildClasses();
  void BuildClassMasks();
  void BuildDfa();
  // One step of the position automaton: *state = follow(*state) & positions accepting the class.
  void Step(uint64_t* state, bool* at_start, int cls) const;
  bool Accepting(const uint64_t* state, bool at_start) const;
  template <typename Symbols>
  bool Run(const Symbols& for_each_symbol) const;

  std::string text_;
  int words_ = 1;                 // 64-bit words per position set
  std::vector<Pred> preds_;       // per position
  std::vector<Range> ranges_;     // referenced by preds_
  std::vector<uint64_t> first_;   // positions that can start a match
  std::vector<uint64_t> last_;    // positions that can end a match
  std::vector<uint64_t> follow_;  // positions that can follow each position: preds_.size()*words_
  bool nullable_ = false;         // matches the empty path
  std::vector<uint32_t> edges_;   // sorted: class k is [edges_[k-1], edges_[k]), class 0 from 0
  std::vector<uint64_t> class_masks_;  // per class: positions accepting it (words_ each)
  // For AS numbers below 65536: the class of each block of 16 numbers, or 255 when the block
  // holds an edge (then the binary search decides). Empty when there are 255 classes or more.
  std::vector<uint8_t> block_class_;
  std::vector<int32_t> dfa_;  // state * classes + class -> state, -1 dead; state 0 = start
  std::vector<uint8_t> dfa_accepting_;
};

}  // namespace sluice::policy
