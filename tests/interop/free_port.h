#pragma once
// A TCP port for a daemon a test starts on loopback.

namespace sluice::testing {

// A TCP port that no socket holds right now on any IPv4 or IPv6 address, below the kernel's
// ephemeral range (so no outgoing connection can take it before a daemon binds it) and not
// returned before in this process; -1 if none is found.
int FreeTcpPort();
// The same, from the ports `low`..`high` only (starting at a random one of them); -1 when each of
// them is held or was handed out before.
int FreeTcpPortIn(int low, int high);
// Whether no socket holds TCP `port` on any IPv4 or IPv6 address now.
bool FreeOnEveryAddress(int port);

}  // namespace sluice::testing
