#include "ipc/random.h"

#include <sys/random.h>

#include <cerrno>
#include <cstdlib>

namespace sluice::ipc {

std::string RandomOctets(size_t n) {
  std::string out(n, '\0');
  size_t done = 0;
  while (done < n) {
    ssize_t got = getrandom(out.data() + done, n - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      std::abort();
    }
    done += static_cast<size_t>(got);
  }
  return out;
}

}  // namespace sluice::ipc
