#include "tests/system/test_certificates.h"

#include <algorithm>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/system/child_process.h"

namespace sluice::testing {
namespace {

std::string FileName(std::string name) {
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

}  // namespace

bool HaveOpenssl() { return RunCommand({"/bin/sh", "-c", "command -v openssl"}).exit_code == 0; }

bool MakeCertificates(const std::string& dir, const std::vector<std::string>& names) {
  const std::string key = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
  std::string script = absl::StrCat("cd ", dir, " && { test -e ca.pem || openssl req -x509 ", key,
                                    " -keyout ca.key -out ca.pem -days 3650 ",
                                    "-subj /CN=sluice-test-ca 2>/dev/null; }");
  for (const std::string& n : names) {
    const std::string f = FileName(n);
    // In -subj a '/' separates fields: the one inside the common name is escaped.
    absl::StrAppend(&script, " && openssl req ", key, " -keyout ", f, ".key -out ", f,
                    ".csr -subj '/CN=", absl::StrReplaceAll(n, {{"/", "\\/"}}),
                    "' 2>/dev/null && openssl x509 -req -in ", f,
                    ".csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 3650 -out ", f,
                    ".pem 2>/dev/null");
  }
  CommandResult r = RunCommand({"/bin/sh", "-c", script});
  if (r.exit_code != 0) std::cerr << "openssl: " << r.err << "\n";
  return r.exit_code == 0;
}

std::string CertificateFile(const std::string& dir, const std::string& name) {
  return absl::StrCat(dir, "/", FileName(name), ".pem");
}

std::string KeyFile(const std::string& dir, const std::string& name) {
  return absl::StrCat(dir, "/", FileName(name), ".key");
}

std::vector<std::string> TlsEnv(const std::string& dir, const std::string& name) {
  return {"SLUICE_TLS_CA=" + dir + "/ca.pem", "SLUICE_TLS_CERT=" + CertificateFile(dir, name),
          "SLUICE_TLS_KEY=" + KeyFile(dir, name)};
}

}  // namespace sluice::testing
