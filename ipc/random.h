#pragma once
// Random octets from the kernel's CSPRNG (getrandom(2)): method keys and incarnations.

#include <cstddef>
#include <string>

namespace sluice::ipc {

// `n` random octets. Aborts the process if the kernel cannot supply them (never on Linux >= 3.17).
std::string RandomOctets(size_t n);

}  // namespace sluice::ipc
