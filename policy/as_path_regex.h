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
// moves; matching runs it bit-parallel over the path, one step per AS number, with no
// allocation (at most kMaxPositions positions; paths of realistic length match in tens of
// nanoseconds). std::regex over the textual path is one to two orders of magnitude slower.

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

  // Errors (InvalidArgument): what is wrong; *error_offset (when given) is set to the offset in
  // `text` of the offending character.
  static absl::StatusOr<AsPathRegex> Compile(std::string_view text, size_t* error_offset = nullptr);

  bool Matches(const AsPathView& path) const;
  bool Matches(std::span<const uint32_t> symbols) const;
  const std::string& text() const { return text_; }
  int positions() const { return static_cast<int>(preds_.size()); }

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
  // One step: *state = follow(*state) restricted to positions accepting asn.
  void Step(uint64_t* state, bool* at_start, uint32_t asn) const;
  bool Accepting(const uint64_t* state, bool at_start) const;

  std::string text_;
  int words_ = 1;                 // 64-bit words per position set
  std::vector<Pred> preds_;       // per position
  std::vector<Range> ranges_;     // referenced by preds_
  std::vector<uint64_t> first_;   // positions that can start a match
  std::vector<uint64_t> last_;    // positions that can end a match
  std::vector<uint64_t> follow_;  // positions that can follow each position: preds_.size()*words_
  bool nullable_ = false;         // matches the empty path
};

}  // namespace sluice::policy
