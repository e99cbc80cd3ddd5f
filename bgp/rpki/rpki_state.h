#pragma once
// A route's RPKI origin validation state (RFC 6811 §2), apart from the VRP table
// (route_origin.h) so that routes can carry it.

#include <cstdint>

namespace sluice::bgp::rpki {

enum class RpkiState : uint8_t { kNotFound, kValid, kInvalid };

// "not-found", "valid", "invalid": the words of the policy language and the CLI.
const char* RpkiStateName(RpkiState state);

}  // namespace sluice::bgp::rpki
