#pragma once
// Internal to AttributeDecoder: the table of path attribute types it knows (RFC 4271 §5 and the
// RFC defining each), giving for each type code its name, the Optional and Transitive bits it
// must carry and the function that decodes its value (RFC 7606 §7 error handling included).
// Types not known here decode as unrecognized attributes (RFC 4271 §5, §6.3).

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bgp/wire/attribute_decoder.h"

namespace sluice::bgp {

// ExpectedFlags of a type this codec does not interpret.
inline constexpr uint8_t kUnknownType = 0xff;

// One attribute of the block: its flags and type octets, its value and the whole attribute (flags,
// type, length, value: the NOTIFICATION data of RFC 4271 §6.3).
struct AttrView {
  uint8_t flags = 0;
  uint8_t type = 0;
  Bytes value;
  Bytes whole;
};

// What AttributeDecoder::Decode does after a step.
enum class AttrStep : uint8_t {
  kNext,  // go on with the attribute (or the next one)
  kSkip,  // the attribute is dealt with (discarded or errored): go to the next one
  kStop,  // a session reset is called for: parsing stops, the final checks are not made
};

// The state of one Decode call, shared by its steps and the per-type decode functions.
struct AttrDecodeContext {
  const SessionParams& params;
  AttributeSource source;
  int as_size;  // octets per AS number in AS_PATH and AGGREGATOR: 2 or 4
  bool strict;  // not MRT: RFC 7606/7607 checks that an archive is read without
  PathAttributes* attrs;
  MpNlriField* reach;
  MpNlriField* unreach;
  UpdateErrors* errors;
  uint32_t* notes;
  AsPath* as_path_storage;  // the previous decode's AS_PATH, recycled into attrs->as_path
  AsPath* as4_path;         // the AS4_PATH read, when have_as4_path
  bool have_as4_path = false;
  std::optional<Aggregator> as4_aggregator = std::nullopt;
  uint64_t seen[4] = {0, 0, 0, 0};  // type codes met in the block, a bit each
  int last_type = -1;               // the highest type code met so far
};

// Decodes `a` (whose flags were checked) into ctx.attrs or ctx.reach/unreach. kNext or kStop.
using AttrDecodeFn = AttrStep (*)(AttrDecodeContext& ctx, const AttrView& a);

struct AttrDesc {
  std::string_view name = "attribute";
  uint8_t expected_flags = kUnknownType;  // Optional | Transitive bits, or kUnknownType
  AttrDecodeFn decode = nullptr;
};

// Indexed by type code; every entry has a decode function.
extern const std::array<AttrDesc, 256> kAttrDecodeTable;

// The attribute's name in error messages ("attribute" for unknown types).
inline std::string_view AttrName(uint8_t type) { return kAttrDecodeTable[type].name; }

}  // namespace sluice::bgp
