#pragma once
// Reading statements of the configuration tree (config_tree.h) into typed values: the checks
// every section shares — how many arguments a statement takes, whether it has a block, which
// keywords a block accepts and which may be given only once — and the value types (numbers in
// a range, addresses of a family, prefixes, durations, names). Each failure is reported to the
// Diagnostics at the offending token with what was expected; the reader then goes on, so that
// one pass finds every error.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/ip_address.h"
#include "net/prefix.h"
#include "rtrmgr/config/config_tree.h"
#include "rtrmgr/config/diagnostics.h"

namespace sluice::rtrmgr {

// Dispatches the statements of one block by keyword. A keyword registered with Once may
// appear once (a second time is an error naming the first); with Many any number of times. An
// unregistered keyword goes to the Otherwise handler when there is one, else it is an error
// listing the keywords the block accepts.
class BlockReader {
 public:
  using Handler = std::function<void(const ConfigNode&)>;
  // `context` names the block in messages: "peer 127.0.0.2", "interfaces".
  BlockReader(std::string context, Diagnostics* diags)
      : context_(std::move(context)), diags_(diags) {}

  BlockReader& Once(std::string keyword, Handler handler);
  BlockReader& Many(std::string keyword, Handler handler);
  BlockReader& Otherwise(Handler handler);
  void Read(const std::vector<ConfigNode>& statements);

 private:
  struct Entry {
    std::string keyword;
    Handler handler;
    bool once;
  };
  std::string context_;
  Diagnostics* diags_;
  std::vector<Entry> entries_;
  Handler otherwise_;
};

// Shape checks; each returns false after reporting.
//   `usage` is how the statement is written: "as AS-NUMBER;".
// A statement with exactly `count` arguments and no block.
bool ExpectArgs(const ConfigNode& n, size_t count, std::string_view usage, Diagnostics* d);
// A statement with min..max arguments and no block.
bool ExpectArgRange(const ConfigNode& n, size_t min, size_t max, std::string_view usage,
                    Diagnostics* d);
// A block with exactly `count` arguments before it.
bool ExpectBlock(const ConfigNode& n, size_t count, std::string_view usage, Diagnostics* d);
// One argument that is a word or a string (not a list): "keyword VALUE;".
const ConfigValue* ExpectOne(const ConfigNode& n, std::string_view usage, Diagnostics* d);

// The members of a "[ a b c ]" argument, or the argument itself when it is one word or string.
std::vector<const ConfigValue*> Members(const ConfigValue& v);
// Whether `v` is the bare word `word` (not a string or a list).
bool IsWord(const ConfigValue& v, std::string_view word);

// Value readers; std::nullopt after reporting. `what` names the value in messages ("hold-time").
std::optional<uint64_t> ReadNumber(const ConfigValue& v, uint64_t min, uint64_t max,
                                   std::string_view what, Diagnostics* d);
// An address of `family` (either when null). Also refuses the unspecified address.
std::optional<net::IPAddress> ReadAddress(const ConfigValue& v, const net::Family* family,
                                          std::string_view what, Diagnostics* d);
// A prefix without host bits ("did you mean ...?" when it has some).
std::optional<net::Prefix> ReadPrefix(const ConfigValue& v, std::string_view what, Diagnostics* d);
// A duration in seconds: "90", "90s", "15m", "1h", within min_s..max_s.
std::optional<uint32_t> ReadDuration(const ConfigValue& v, uint32_t min_s, uint32_t max_s,
                                     std::string_view what, Diagnostics* d);
// A name of 1..max_length characters of `allowed` (plus letters and digits), starting with a
// letter or, when `first_digit_ok`, a digit. A string is accepted as well as a word.
std::optional<std::string> ReadName(const ConfigValue& v, std::string_view allowed,
                                    size_t max_length, bool first_digit_ok, std::string_view what,
                                    Diagnostics* d);
// A string or a word, of at most max_octets.
std::optional<std::string> ReadText(const ConfigValue& v, size_t max_octets, std::string_view what,
                                    Diagnostics* d);

// True for an IPv4 or IPv6 multicast address.
bool IsMulticast(const net::IPAddress& a);
// "1h", "15m", "90s": the largest unit that divides `seconds`.
std::string FormatDuration(uint32_t seconds);

}  // namespace sluice::rtrmgr
