#pragma once
// AttributeDecoder: parses the Path Attributes field of an UPDATE (RFC 4271 §4.3) — or the
// attribute block of an MRT RIB entry (RFC 6396 §4.3.4) — into a PathAttributes, applying the
// per-attribute error handling of RFC 7606 §7 and RFC 6793 §6 and the AS_PATH/AS4_PATH
// reconciliation of RFC 6793 §4.2.3.
//
// MP_REACH_NLRI and MP_UNREACH_NLRI are located but their NLRI are not parsed here: the caller
// (UpdateDecoder) does that, knowing which families use ADD-PATH.
//
// An attribute whose length overruns the block is RFC 7606 §4 treat-as-withdraw — unless the
// octets it swallowed could hold an MP attribute not parsed yet, or it is one itself: RFC 7606
// §3(j) then calls for a session reset (withdrawals in a lost MP_UNREACH_NLRI would otherwise
// stay), or for AFI/SAFI disable when the lost attribute's family is known and nothing else can
// be hidden. MRT data keeps §4 alone.

#include <cstdint>

#include "bgp/wire/as_path.h"
#include "bgp/wire/byte_io.h"
#include "bgp/wire/path_attributes.h"
#include "bgp/wire/session_params.h"
#include "bgp/wire/update_message.h"

namespace sluice::bgp {

struct AttrView;                // attribute_decode_table.h
struct AttrDecodeContext;       // attribute_decode_table.h
enum class AttrStep : uint8_t;  // attribute_decode_table.h

// Where an MP_REACH_NLRI or MP_UNREACH_NLRI attribute put its NLRI.
struct MpNlriField {
  bool present = false;  // the attribute was there
  bool usable = false;   // and its AFI/SAFI is supported and negotiated
  AfiSafi family;
  Bytes nlri;
};

enum class AttributeSource : uint8_t {
  kUpdate,       // an UPDATE's Path Attributes field
  kMrtRibEntry,  // TABLE_DUMP_V2 RIB entry: MP_REACH_NLRI holds only the nexthop (RFC 6396
                 // §4.3.4); the full form is accepted too (first octet 0)
};

class AttributeDecoder {
 public:
  // Decodes `block` into `attrs` (cleared first). Errors are added to `errors` with the RFC 7606
  // approach they call for; WireNote bits to `notes`. When a session reset is called for, parsing
  // stops there.
  void Decode(Bytes block, const SessionParams& params, AttributeSource source,
              PathAttributes* attrs, MpNlriField* reach, MpNlriField* unreach, UpdateErrors* errors,
              uint32_t* notes);

  // After Decode: the block held an attribute other than MP_UNREACH_NLRI (RFC 7606 §5.2).
  bool carried_other_than_mp_unreach() const { return other_than_unreach_; }

 private:
  // Reads the next attribute's header (RFC 4271 §4.3: flags, type, length) into `out` and moves
  // `r` past the attribute. False at the end of the block, or when the rest of the block cannot
  // hold the header or the value (RFC 7606 §4, Overrun): the error is then recorded. Inline (run
  // for every attribute), defined in attribute_decoder.cc, its only user.
  inline bool ReadAttribute(ByteReader& r, AttrDecodeContext& ctx, AttrView* out);

  // An attribute whose length overruns the block (`rest`: from its first octet to the block's
  // end; `header`: 3 or 4 octets): RFC 7606 §4 treat-as-withdraw, unless MP_REACH_NLRI or
  // MP_UNREACH_NLRI is (AFI/SAFI disable, RFC 4760 §7) or may be lost in the overrun (session
  // reset, RFC 7606 §3(j)). `ctx.seen`: the attributes read before it.
  void Overrun(Bytes rest, size_t header, const AttrDecodeContext& ctx);

  AsPath as4_path_;                  // scratch, reused
  bool other_than_unreach_ = false;  // of the block being decoded
};

// Records one error in `errors` (keeping the first reason). `attribute` is the whole offending
// attribute (flags, type, length, value): the NOTIFICATION data RFC 4271 §6.3 asks for.
void AddUpdateError(UpdateErrors* errors, UpdateAction action, uint8_t subcode, Bytes attribute,
                    std::string reason);

}  // namespace sluice::bgp
