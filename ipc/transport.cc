#include "ipc/transport.h"

#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>

#include "absl/strings/str_format.h"
#include "grpcpp/create_channel.h"
#include "ipc/rundir.h"

namespace sluice::ipc {
namespace {

struct LoadedTls {
  std::string ca;
  std::string certificate;
  std::string key;
};

std::mutex& SecurityMutex() {
  static std::mutex mu;
  return mu;
}
std::optional<TransportSecurity>& ProcessSecurity() {
  static std::optional<TransportSecurity> security;
  return security;
}

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

absl::StatusOr<std::string> ReadPem(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in || text.str().empty()) {
    return absl::UnavailableError(absl::StrFormat("cannot read TLS file %s", path));
  }
  return text.str();
}

absl::StatusOr<LoadedTls> Load(const TlsFiles& files) {
  LoadedTls loaded;
  for (auto [path, out] :
       {std::pair{&files.ca, &loaded.ca}, std::pair{&files.certificate, &loaded.certificate},
        std::pair{&files.key, &loaded.key}}) {
    auto pem = ReadPem(*path);
    if (!pem.ok()) return pem.status();
    *out = *std::move(pem);
  }
  return loaded;
}

bool IsTcp(std::string_view endpoint) { return endpoint.substr(0, 4) == "tcp:"; }

// The subject common name of the first certificate in `pem`.
absl::StatusOr<std::string> CommonName(const std::string& pem, const std::string& path) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(BIO_new_mem_buf(pem.data(), int(pem.size())),
                                                &BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr, &X509_free);
  const X509_NAME* subject = cert ? X509_get_subject_name(cert.get()) : nullptr;
  const int at = subject ? X509_NAME_get_index_by_NID(subject, NID_commonName, -1) : -1;
  const ASN1_STRING* cn =
      at < 0 ? nullptr : X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
  if (cn == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrFormat("%s: no PEM certificate with a subject common name", path));
  }
  return std::string(reinterpret_cast<const char*>(ASN1_STRING_get0_data(cn)),
                     size_t(ASN1_STRING_length(cn)));
}

absl::Status NeedsTls(std::string_view endpoint) {
  return absl::FailedPreconditionError(absl::StrFormat(
      "%s: TCP needs mutual TLS (finder { tls { ca FILE; certificate FILE; key FILE; } }) or "
      "`insecure;` in the finder block",
      endpoint));
}

}  // namespace

absl::StatusOr<std::string> OwnCertificateName() {
  auto security = GetTransportSecurity();
  if (!security.ok()) return security.status();
  if (!security->tls.has_value()) return "";
  auto pem = ReadPem(security->tls->certificate);
  if (!pem.ok()) return pem.status();
  return CommonName(*pem, security->tls->certificate);
}

absl::StatusOr<TransportSecurity> GetTransportSecurity() {
  std::lock_guard lock(SecurityMutex());
  if (ProcessSecurity().has_value()) return *ProcessSecurity();
  TransportSecurity security;
  TlsFiles files{Env("SLUICE_TLS_CA"), Env("SLUICE_TLS_CERT"), Env("SLUICE_TLS_KEY")};
  int given = !files.ca.empty() + !files.certificate.empty() + !files.key.empty();
  if (given != 0 && given != 3) {
    return absl::InvalidArgumentError(
        "SLUICE_TLS_CA, SLUICE_TLS_CERT and SLUICE_TLS_KEY go together: set all three or none");
  }
  if (given == 3) security.tls = files;
  security.insecure = Env("SLUICE_INSECURE") == "1";
  return security;
}

void SetTransportSecurity(TransportSecurity security) {
  std::lock_guard lock(SecurityMutex());
  ProcessSecurity() = std::move(security);
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    std::string_view endpoint) {
  if (!IsTcp(endpoint)) return grpc::InsecureServerCredentials();
  auto security = GetTransportSecurity();
  if (!security.ok()) return security.status();
  if (!security->tls.has_value()) {
    if (security->insecure) return grpc::InsecureServerCredentials();
    return NeedsTls(endpoint);
  }
  auto tls = Load(*security->tls);
  if (!tls.ok()) return tls.status();
  grpc::SslServerCredentialsOptions options(
      GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = tls->ca;
  options.pem_key_cert_pairs.push_back({tls->key, tls->certificate});
  return grpc::SslServerCredentials(options);
}

absl::StatusOr<std::shared_ptr<grpc::Channel>> OpenChannel(std::string_view endpoint,
                                                           std::string_view peer_name,
                                                           grpc::ChannelArguments args) {
  auto target = GrpcTarget(endpoint);
  if (!target.ok()) return target.status();
  if (!IsTcp(endpoint)) {
    return grpc::CreateCustomChannel(*target, grpc::InsecureChannelCredentials(), args);
  }
  auto security = GetTransportSecurity();
  if (!security.ok()) return security.status();
  if (!security->tls.has_value()) {
    if (!security->insecure) return NeedsTls(endpoint);
    return grpc::CreateCustomChannel(*target, grpc::InsecureChannelCredentials(), args);
  }
  auto tls = Load(*security->tls);
  if (!tls.ok()) return tls.status();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = tls->ca;
  options.pem_private_key = tls->key;
  options.pem_cert_chain = tls->certificate;
  // The server's certificate must name the component we meant to reach.
  args.SetSslTargetNameOverride(std::string(peer_name));
  return grpc::CreateCustomChannel(*target, grpc::SslCredentials(options), args);
}

void SetReconnect(grpc::ChannelArguments& args, int max_backoff_ms) {
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, max_backoff_ms);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, kConnectTimeoutMs);
}

std::string CertificateClass(std::string_view certificate_name) {
  return std::string(certificate_name.substr(0, certificate_name.find('/')));
}

std::string CertificateInstance(std::string_view certificate_name) {
  size_t slash = certificate_name.find('/');
  return slash == std::string_view::npos ? "" : std::string(certificate_name.substr(slash + 1));
}

}  // namespace sluice::ipc
