#pragma once
// Transport security: how a process's gRPC connections are made (DESIGN.md § Security).
//
// Unix sockets carry no encryption: file modes keep strangers out and the kernel names the
// caller (ipc/peer_identity.h). TCP is mutual TLS: every process presents a certificate signed
// by the router's CA whose subject common name is the class it may register as ("fea"), or
// the class and the one instance ("fea/host1"); it checks the other side's certificate the
// same way. Plain TCP only when the configuration says `insecure;`.
//
// A process takes its settings from SetTransportSecurity(), else from its environment (the
// router manager sets these from `finder { tls { ca FILE; certificate FILE; key FILE; } }`):
//   SLUICE_TLS_CA, SLUICE_TLS_CERT, SLUICE_TLS_KEY   PEM files, all three or none
//   SLUICE_INSECURE=1                                plain TCP allowed (no TLS configured)

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/support/channel_arguments.h"

namespace sluice::ipc {

struct TlsFiles {
  std::string ca;           // the CA certificate(s) that sign every Sluice certificate
  std::string certificate;  // this process's certificate chain
  std::string key;          // its private key
};

struct TransportSecurity {
  std::optional<TlsFiles> tls;
  bool insecure = false;  // plain TCP allowed when no TLS is configured
};

// The process's settings (see above). Errors: InvalidArgument when only some of the
// SLUICE_TLS_* variables are set.
absl::StatusOr<TransportSecurity> GetTransportSecurity();
void SetTransportSecurity(TransportSecurity security);

// The credentials to serve `endpoint` with: insecure for unix:, TLS (client certificates
// required and verified) or, with `insecure`, plain for tcp:. Errors: FailedPrecondition for a
// tcp: endpoint with neither; Unavailable naming an unreadable PEM file.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    std::string_view endpoint);

// A channel to `endpoint` ("unix:/p", "tcp:H:P"). Over TLS the server's certificate must name
// `peer_name` (its common name: "finder", "fea", "fea/host1"). Errors as ServerCredentialsFor,
// and InvalidArgument for a malformed endpoint.
absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(std::string_view endpoint,
                                                           std::string_view peer_name,
                                                           grpc::ChannelArguments args);

// How long one connection attempt, handshake included, may take before gRPC gives it up and
// fails the calls waiting on it (UNAVAILABLE). A target that is alive but stalled — stopped,
// starved of CPU, swapped out, or across a slow link — is waited for this long. gRPC names
// the setting GRPC_ARG_MIN_RECONNECT_BACKOFF_MS; gRPC's doc/connection-backoff.md calls it
// MIN_CONNECT_TIMEOUT, 20 s by default.
inline constexpr int kConnectTimeoutMs = 20000;

// Sets `args` so that a refused connection (a target not listening yet) is tried again after
// 100 ms, backing off to `max_backoff_ms` between attempts, each attempt given
// kConnectTimeoutMs.
void SetReconnect(grpc::ChannelArguments& args, int max_backoff_ms);

// The common name of the certificate this process serves TCP with (TransportSecurity's tls);
// "" without TLS. Errors: Unavailable for an unreadable file, InvalidArgument when it holds no
// PEM certificate with a common name.
absl::StatusOr<std::string> OwnCertificateName();

// The class a certificate name allows ("fea/host1" -> "fea") and its instance ("host1", or ""
// when any instance of the class).
std::string CertificateClass(std::string_view certificate_name);
std::string CertificateInstance(std::string_view certificate_name);

}  // namespace sluice::ipc
