// metrics { listen ADDRESS [port N]; }: where sluice-rtrmgr serves its Prometheus endpoint
// (IPv4; 0.0.0.0 for every address).
#include "absl/strings/str_format.h"
#include "rtrmgr/config/config_builder.h"
#include "rtrmgr/config/config_reader.h"

namespace sluice::rtrmgr {

namespace {

// listen ADDRESS [port N];
void ReadMetricsListen(const ConfigNode& s, MetricsConfig* metrics, Diagnostics* diags) {
  constexpr std::string_view kUsage = "listen ADDRESS [port N];";
  if (!ExpectArgRange(s, 1, 3, kUsage, diags)) return;
  // IPv4 only: the HTTP server (prometheus-cpp's civetweb, as Debian builds it) has no IPv6.
  const ConfigValue& a = s.args[0];
  auto address = a.kind == ConfigValue::Kind::kWord ? net::IPAddress::Parse(a.text)
                                                    : absl::InvalidArgumentError("");
  if (!address.ok() || !address->is_v4()) {
    diags->Add(a.loc, absl::StrFormat("expected an IPv4 address to serve metrics on (0.0.0.0 for "
                                      "every address; the HTTP server has no IPv6), found %s",
                                      a.Describe()));
    return;
  }
  metrics->address = *address;
  if (s.args.size() == 1) return;
  const ConfigValue& kw = s.args[1];
  if (kw.kind != ConfigValue::Kind::kWord || kw.text != "port" || s.args.size() < 3) {
    diags->Add(kw.loc, absl::StrFormat("expected 'port N' after the listen address, found %s: %s",
                                       kw.Describe(), kUsage));
    return;
  }
  if (auto port = ReadNumber(s.args[2], 1, 65535, "metrics port", diags)) {
    metrics->port = static_cast<uint16_t>(*port);
  }
}

}  // namespace

void BuildMetrics(const ConfigNode& node, MetricsConfig* metrics, Diagnostics* diags) {
  if (!ExpectBlock(node, 0, "metrics { listen ADDRESS [port N]; }", diags)) return;
  metrics->enabled = true;
  metrics->where.loc = node.loc;
  BlockReader("metrics", diags)
      .Once("listen", [&](const ConfigNode& s) { ReadMetricsListen(s, metrics, diags); })
      .Read(node.children);
}

}  // namespace sluice::rtrmgr
