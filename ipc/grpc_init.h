#pragma once
// Keeps gRPC initialised for the rest of the process (internal to ipc/ and finder/).
//
// gRPC tears itself down when its last object goes; when that happens on one of gRPC's own
// threads while the process exits (a call's callback dropping the last channel as main()
// returns), the teardown races the exit and can abort. Holding one initialisation for the
// process's life means gRPC is never torn down; the kernel reclaims everything at exit.

namespace sluice::ipc {

// Idempotent and thread-safe.
void HoldGrpcForProcessLifetime();

}  // namespace sluice::ipc
