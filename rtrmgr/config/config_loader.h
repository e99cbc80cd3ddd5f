#pragma once
// Reading a configuration file: parse, build the typed model, validate it as
// a whole. Nothing is returned unless the whole file is right, so a caller that acts only on a
// returned Config never starts anything from a bad file and never replaces a running
// configuration with one (compute the change with config_delta.h).
//
// Every error names FILE:LINE:COL and what is wrong; up to `max_errors` are reported together
// (syntax errors first stop the later checks, which would only guess at an incomplete tree).
//
// The language, by example (rtrmgr/examples/ has annotated files):
//
//   interfaces {
//       interface eth0 { address 10.0.0.1/24; address 2001:db8::1/64; mtu 1500; }
//   }
//   fea { backend dummy; }                 # or: backend netlink; table 254;
//   rib { admin-distance { ebgp 20; static 5; } }
//   protocols {
//       static { route 192.0.2.0/24 { next-hop 10.0.0.254; metric 1; tag 7; track; } }
//       bgp {
//           local-as 65000; bgp-id 10.0.0.1; threads 4;
//           damping { half-life 15m; reuse 750; suppress 6000; max-suppress 1h; }
//           peer 127.0.0.2 {
//               as 65001; local-ip 127.0.0.1; port 179; passive; hold-time 90;
//               md5-password "secret"; ttl-security 1; max-prefix 1000000 restart 60;
//               import [ upstream-in ]; export [ upstream-out ];
//               next-hop-self; route-reflector-client; damping; disable;
//               description "transit";
//           }
//       }
//   }
//   policy { ...the policy language (policy/parser.h)... }
//   finder { access { default allow; bgp { resolve [ rib fea/fea_ifmgr/1.0 ]; } } }
//
// Grammar of statements (config_tree.h):
//   statement := KEYWORD argument* ( ';' | '{' statement* '}' )
//   argument  := WORD | "STRING" | '[' (WORD | "STRING")* ']'
// Comments: '#' or '//' to the end of the line, '/* ... */'. Durations are seconds, or a number
// with s, m or h. Which keywords each block takes, their values and defaults: config.h.

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "rtrmgr/config/config.h"
#include "rtrmgr/config/diagnostics.h"

namespace sluice::rtrmgr {

// Parses and validates `text`, read from `file` (used in locations; "<config>" when empty).
// Returns the configuration, or std::nullopt with the errors in `diags`.
std::optional<Config> ReadConfig(std::string_view text, std::string_view file, Diagnostics* diags);

// The same, with the errors as one InvalidArgument status (one "FILE:LINE:COL: ..." per line).
absl::StatusOr<Config> ParseConfig(std::string_view text, std::string_view file,
                                   size_t max_errors = 50);

// Reads and parses the file at `path`. Errors: NotFound / PermissionDenied / FailedPrecondition
// when it cannot be read (over 16 MiB included); InvalidArgument as ParseConfig.
absl::StatusOr<Config> LoadConfigFile(const std::string& path, size_t max_errors = 50);

}  // namespace sluice::rtrmgr
