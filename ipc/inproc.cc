#include "ipc/inproc.h"

#include <mutex>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_format.h"
#include "ipc/random.h"

namespace sluice::ipc::internal {
namespace {

struct Registry {
  std::mutex mu;
  std::string prefix;  // "inproc:PROCESS/"
  uint64_t next_id = 1;
  absl::flat_hash_map<std::string, std::weak_ptr<RouterCore>> routers;
};

Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    std::string token = RandomOctets(8);
    uint64_t value = 0;
    for (char c : token) value = (value << 8) | static_cast<unsigned char>(c);
    r->prefix = absl::StrFormat("inproc:%016x/", value);
    return r;
  }();
  return *registry;
}

}  // namespace

std::string AddInprocRouter(const std::weak_ptr<RouterCore>& router) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  std::string endpoint = absl::StrFormat("%s%d", r.prefix, r.next_id++);
  r.routers[endpoint] = router;
  return endpoint;
}

void RemoveInprocRouter(const std::string& endpoint) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  r.routers.erase(endpoint);
}

std::shared_ptr<RouterCore> FindInprocRouter(std::string_view endpoint) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mu);
  auto it = r.routers.find(absl::string_view(endpoint.data(), endpoint.size()));
  if (it == r.routers.end()) return nullptr;
  return it->second.lock();
}

}  // namespace sluice::ipc::internal
