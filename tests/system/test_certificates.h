#pragma once
// Certificates for the system tests' mutual TLS (ipc/transport.h): a CA of the test's own in a
// directory, and for each name a key and a certificate whose subject common name is the name —
// a class ("fea") or a class and an instance ("fea/fea-b"), as the Finder reads it
// (finder/authority.h). Made with the openssl command (Debian package openssl).

#include <string>
#include <vector>

namespace sluice::testing {

// Whether the openssl command exists.
bool HaveOpenssl();
// Makes the CA in `dir` the first time (ca.pem, ca.key), then a key and a certificate for each
// of `names`. False (after printing openssl's error) on a failure.
bool MakeCertificates(const std::string& dir, const std::vector<std::string>& names);
// The files of `name`'s certificate and key ('/' in a name is '_' in a file name).
std::string CertificateFile(const std::string& dir, const std::string& name);
std::string KeyFile(const std::string& dir, const std::string& name);
// SLUICE_TLS_CA, SLUICE_TLS_CERT and SLUICE_TLS_KEY for a process presenting `name`.
std::vector<std::string> TlsEnv(const std::string& dir, const std::string& name);

}  // namespace sluice::testing
