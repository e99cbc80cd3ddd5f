#pragma once
// UpdateMessage: a decoded UPDATE (RFC 4271 §4.3, RFC 4760) — its withdrawn and announced NLRI of
// every family, the interned attribute set of the announced ones, and the outcome of the error
// handling of RFC 7606 (what the session must do about a malformed UPDATE).
//
// Made by UpdateDecoder (bgp/wire/update_decoder.h); turned back into bytes by UpdateEncoder
// (bgp/wire/update_encoder.h).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "bgp/wire/attribute_store.h"
#include "bgp/wire/constants.h"
#include "bgp/wire/nlri.h"
#include "bgp/wire/notification.h"

namespace sluice::bgp {

// RFC 7606 §2 error handling approaches, least to most severe.
enum class UpdateAction : uint8_t {
  kNone = 0,              // well-formed
  kAttributeDiscard = 1,  // some attributes were dropped (`discarded`); routes are fine
  kTreatAsWithdraw = 2,   // the announced NLRI became withdrawals; `attributes` is null
  kAfiSafiDisable = 3,    // the NLRI of `disabled_families` are unusable: stop that family
  kSessionReset = 4,      // send `notification` and close the session; nothing else is valid
};
std::string_view UpdateActionName(UpdateAction action);

// What went wrong in an UPDATE, and what to do (RFC 7606 §3-§7). Several errors can occur in one
// UPDATE; each approach that applies is recorded and action() is the most severe.
struct UpdateErrors {
  bool treat_as_withdraw = false;
  AfiSafiSet disabled_families;
  std::vector<uint8_t> discarded;  // attribute type codes dropped by "attribute discard"
  bool session_reset = false;
  // For kSessionReset the NOTIFICATION to send; for kAfiSafiDisable the one to send should the
  // session choose to reset instead (RFC 7606 §7.11 allows either).
  Notification notification;
  std::string reason;  // the first error, e.g. "AS_PATH: segment of length 0"
  int count = 0;       // errors seen

  UpdateAction action() const;
  bool ok() const { return count == 0; }
  void Clear();
};

// Observations about the wire form that make a canonical re-encoding differ from the received
// bytes (not errors). Bits of UpdateMessage::wire_notes.
enum WireNote : uint32_t {
  kNoteAttributeOrder = 1u << 0,    // attributes not in type-code order
  kNoteExtendedLength = 1u << 1,    // Extended Length bit on a value of at most 255 octets
  kNoteFlags = 1u << 2,             // flag bits other than the canonical ones
  kNoteHostBits = 1u << 3,          // a prefix had bits set past its length
  kNoteMpReserved = 1u << 4,        // MP_REACH_NLRI reserved octet not zero
  kNoteAs4Reconciled = 1u << 5,     // AS4_PATH ignored or merged with a longer AS_PATH
  kNoteAs4Unneeded = 1u << 6,       // AS4_PATH/AS4_AGGREGATOR sent although no AS needs 4 octets
  kNoteDroppedAttribute = 1u << 7,  // an attribute not kept (optional non-transitive unknown,
                                    // duplicate, AS4_* in a 4-octet session, discarded)
  kNoteAttributesWithoutNlri = 1u << 8,  // path attributes but nothing announced
  kNoteMpLayout = 1u << 9,               // MP_REACH without NLRI, MP attributes of a family that is
                                         // not negotiated, or NLRI split in an unusual way
  kNoteErrors = 1u << 10,                // an RFC 7606 error was handled
};
std::string WireNotesToString(uint32_t notes);

struct UpdateMessage {
  // Withdrawn NLRI: the Withdrawn Routes field, then MP_UNREACH_NLRI (and, after
  // treat-as-withdraw, the NLRI that were announced).
  std::vector<Nlri> withdrawn;
  // Announced NLRI: the NLRI field, then MP_REACH_NLRI (wire order kept within each).
  std::vector<Nlri> announced;
  // The path attributes of `announced`; null when nothing is announced.
  AttrRef attributes;
  // RFC 4724 §2: the End-of-RIB marker of this family (an UPDATE with nothing else in it).
  std::optional<AfiSafi> end_of_rib;
  UpdateErrors errors;

  // Wire layout, kept so that a re-encoding can be exact (and for tools that print it):
  // withdrawn[0, classic_withdrawn) came from the Withdrawn Routes field and
  // announced[0, classic_announced) from the NLRI field, the rest from the MP attributes.
  uint32_t classic_withdrawn = 0;
  uint32_t classic_announced = 0;
  uint32_t wire_notes = 0;  // WireNote bits

  // Empties the message, keeping vector capacity.
  void Clear();
  // Drops the NLRI (announced and withdrawn) and the End-of-RIB of `families`; `attributes`
  // goes when nothing is left announced. For RFC 7606 AFI/SAFI disable.
  void DropFamilies(AfiSafiSet families);
};

}  // namespace sluice::bgp
