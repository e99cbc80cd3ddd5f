#include "policy/as_path.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::policy {

int AsPathView::Length() const {
  int length = 0;
  ForEachSegment([&](const AsSegment& s) {
    switch (s.type) {
      case AsSegmentType::kSequence:
        length += static_cast<int>(s.asns.size());
        break;
      case AsSegmentType::kSet:
        length += 1;
        break;
      default:
        break;
    }
  });
  return length;
}

void AsPathView::Symbols(std::vector<uint32_t>* out) const {
  out->clear();
  ForEachSegment(
      [&](const AsSegment& s) { out->insert(out->end(), s.asns.begin(), s.asns.end()); });
}

uint32_t AsPathView::FirstAs() const {
  uint32_t first = 0;
  bool found = false;
  ForEachSegment([&](const AsSegment& s) {
    if (!found && !s.asns.empty()) {
      first = s.asns[0];
      found = true;
    }
  });
  return first;
}

std::string AsPathView::ToString() const {
  std::string text;
  ForEachSegment([&](const AsSegment& s) {
    const char* open = "";
    const char* close = "";
    const char* sep = " ";
    switch (s.type) {
      case AsSegmentType::kSet:
        open = "{", close = "}", sep = ",";
        break;
      case AsSegmentType::kConfedSequence:
        open = "(", close = ")";
        break;
      case AsSegmentType::kConfedSet:
        open = "[", close = "]", sep = ",";
        break;
      default:
        break;
    }
    if (!text.empty()) text += ' ';
    text += open;
    for (size_t i = 0; i < s.asns.size(); ++i) {
      if (i > 0) text += sep;
      absl::StrAppend(&text, s.asns[i]);
    }
    text += close;
  });
  return text;
}

absl::StatusOr<AsPath> AsPath::Parse(std::string_view text) {
  std::vector<uint32_t> words;
  size_t header = 0;  // index of the open segment's header in words
  bool open = false;
  AsSegmentType open_type = AsSegmentType::kSequence;
  bool bracketed = false;  // inside {} () []
  char closer = 0;

  auto start_segment = [&](AsSegmentType type) {
    header = words.size();
    words.push_back(AsSegmentHeader(type, 0));
    open = true;
    open_type = type;
  };
  auto error = [&](std::string_view what) {
    return absl::InvalidArgumentError(absl::StrFormat("bad AS path '%s': %s", text, what));
  };

  size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == ',') {
      ++i;
      continue;
    }
    if (c == '{' || c == '(' || c == '[') {
      if (bracketed) return error("nested brackets");
      bracketed = true;
      closer = c == '{' ? '}' : c == '(' ? ')' : ']';
      start_segment(c == '{'   ? AsSegmentType::kSet
                    : c == '(' ? AsSegmentType::kConfedSequence
                               : AsSegmentType::kConfedSet);
      ++i;
      continue;
    }
    if (c == '}' || c == ')' || c == ']') {
      if (!bracketed || c != closer)
        return error(absl::StrCat("unexpected '", std::string(1, c), "'"));
      bracketed = false;
      open = false;
      ++i;
      continue;
    }
    if (c < '0' || c > '9') return error(absl::StrCat("unexpected '", std::string(1, c), "'"));
    size_t j = i;
    while (j < text.size() && text[j] >= '0' && text[j] <= '9') ++j;
    uint32_t asn = 0;
    if (j - i > 10 || !absl::SimpleAtoi(absl::string_view(text.data() + i, j - i), &asn)) {
      return error(absl::StrCat("AS number out of range: ", std::string(text.substr(i, j - i))));
    }
    if (!open || (!bracketed && open_type != AsSegmentType::kSequence)) {
      start_segment(AsSegmentType::kSequence);
    }
    if ((words[header] & 0xffffff) == kMaxAsSegmentLength) {
      if (bracketed) return error("a segment holds at most 255 ASNs");
      start_segment(AsSegmentType::kSequence);
    }
    words.push_back(asn);
    ++words[header];
    i = j;
  }
  if (bracketed) return error(absl::StrCat("missing '", std::string(1, closer), "'"));
  return AsPath(std::move(words));
}

void PrependAs(AsPathView in, uint32_t asn, int count, std::vector<uint32_t>* out) {
  out->clear();
  const auto words = in.words();
  int room = 0;
  if (!words.empty() && (words[0] >> 24) == static_cast<uint32_t>(AsSegmentType::kSequence)) {
    room = kMaxAsSegmentLength - static_cast<int>(std::min<uint32_t>(words[0] & 0xffffff, 255));
  }
  int rest = count - std::min(count, room);
  // New leading segments for what does not fit into the first sequence, the fullest first.
  while (rest > 0) {
    const int n =
        rest % kMaxAsSegmentLength == 0 ? kMaxAsSegmentLength : rest % kMaxAsSegmentLength;
    out->push_back(AsSegmentHeader(AsSegmentType::kSequence, n));
    out->insert(out->end(), n, asn);
    rest -= n;
  }
  const int into_first = std::min(count, room);
  if (into_first > 0) {
    out->push_back(words[0] + static_cast<uint32_t>(into_first));
    out->insert(out->end(), into_first, asn);
    out->insert(out->end(), words.begin() + 1, words.end());
  } else {
    out->insert(out->end(), words.begin(), words.end());
  }
}

}  // namespace sluice::policy
