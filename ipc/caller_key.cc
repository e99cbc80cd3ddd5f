#include "ipc/caller_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>

namespace sluice::ipc {
namespace {

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
           &length) == nullptr) {
    std::abort();  // only on allocation failure inside OpenSSL
  }
  return std::string(reinterpret_cast<const char*>(out), length);
}

}  // namespace

std::string CallerKey(std::string_view secret, std::string_view caller_id) {
  std::string mac = HmacSha256(secret, caller_id);
  mac.resize(kMethodKeySize);
  return mac;
}

bool SameKey(std::string_view a, std::string_view b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string ClassCredential(std::string_view master_key, std::string_view class_name) {
  return HmacSha256(master_key, "sluice class " + std::string(class_name));
}

}  // namespace sluice::ipc
