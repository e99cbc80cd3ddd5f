// libFuzzer target: AS-path regular expressions, compiled and matched.
//
// Input: the expression, a newline, then an AS path in its text form ("65001 3356 {1 2}"; when
// that does not parse, the octets are taken as raw path words, headers and all, as a protocol
// could hand them over). Compiling gives an expression or an error, never a crash or a hang;
// a compiled expression gives the same answer on the path's words as on its symbols, and obeys
// two identities checked by compiling more text: "(R)" matches what R matches, and when R
// matches a path P, "(R)*" matches the empty path and P twice over.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "policy/as_path.h"
#include "policy/as_path_regex.h"

namespace sluice::policy {
namespace {

void Check(bool ok, const char* what, std::string_view regex) {
  if (ok) return;
  std::fprintf(stderr, "fuzz invariant broken for \"%.*s\": %s\n", static_cast<int>(regex.size()),
               regex.data(), what);
  std::abort();
}

AsPath PathFrom(std::string_view text) {
  if (auto path = AsPath::Parse(text); path.ok()) return *path;
  std::vector<uint32_t> words(text.size() / 4);
  if (!words.empty()) std::memcpy(words.data(), text.data(), words.size() * 4);
  return AsPath(std::move(words));
}

// The identities need the expression as a whole to be wrappable in parentheses.
bool Wrappable(std::string_view regex) {
  return regex.find('^') == std::string_view::npos && regex.find('$') == std::string_view::npos;
}

void CheckIdentities(std::string_view text, const AsPathRegex& re,
                     const std::vector<uint32_t>& symbols) {
  const bool matched = re.Matches(symbols);
  const std::string wrapped = "(" + std::string(text) + ")";
  if (auto group = AsPathRegex::Compile(wrapped); group.ok()) {
    Check(group->Matches(symbols) == matched, "(R) matches what R matches", text);
  }
  if (!matched) return;
  auto star = AsPathRegex::Compile(wrapped + "*");
  if (!star.ok()) return;  // e.g. too deep or too large once wrapped
  std::vector<uint32_t> twice = symbols;
  twice.insert(twice.end(), symbols.begin(), symbols.end());
  Check(star->Matches(std::vector<uint32_t>{}), "(R)* matches the empty path", text);
  Check(star->Matches(twice), "(R)* matches P P when R matches P", text);
}

}  // namespace
}  // namespace sluice::policy

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::policy;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  const std::string_view text = input.substr(0, newline);
  const std::string_view rest =
      newline == std::string_view::npos ? std::string_view() : input.substr(newline + 1);

  size_t error_offset = 0;
  auto re = AsPathRegex::Compile(text, &error_offset);
  if (!re.ok()) {
    Check(error_offset <= text.size(), "the error offset is inside the text", text);
    return 0;
  }
  Check(re->positions() <= AsPathRegex::kMaxPositions, "positions within the limit", text);
  Check(re->dfa_states() <= AsPathRegex::kMaxDfaStates, "DFA within the limit", text);

  const AsPath path = PathFrom(rest);
  std::vector<uint32_t> symbols;
  path.view().Symbols(&symbols);
  const bool matched = re->Matches(path.view());
  Check(matched == re->Matches(symbols), "the path and its symbols match alike", text);
  if (Wrappable(text)) CheckIdentities(text, *re, symbols);
  return 0;
}
