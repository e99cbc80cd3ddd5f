// libFuzzer target: any text as a configuration file gives a configuration or errors, never a
// crash; and an accepted configuration survives the pretty-printer (printed, read back: equal,
// and with an empty delta to itself and to its reprint).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "rtrmgr/config/config_delta.h"
#include "rtrmgr/config/config_loader.h"
#include "rtrmgr/config/config_printer.h"

using namespace sluice::rtrmgr;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  Diagnostics diags(20);
  std::optional<Config> config = ReadConfig(text, "fuzz.conf", &diags);
  (void)diags.ToStatus();
  if (!config) return 0;
  const std::string printed = PrintConfig(*config);
  auto again = ParseConfig(printed, "printed.conf");
  if (!again.ok() || !(*again == *config) || PrintConfig(*again) != printed) std::abort();
  if (!ComputeDelta(*config, *again).empty()) std::abort();
  (void)ComputeDelta(Config(), *config).ToString();
  (void)ComputeDelta(*config, Config()).ToString();
  return 0;
}
