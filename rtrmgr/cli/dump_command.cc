// sluice dump bgp table FILE [ peer ADDR ]: sluice-bgp writes its Loc-RIB (or the peer's
// Adj-RIB-In, as received) to FILE as an MRT TABLE_DUMP_V2 file (RFC 6396 §4.3; `bgpdump -m`
// reads it) through bgp/1.0/dump_table, which answers once the file is complete. The file is
// written by sluice-bgp, as the user it runs as; a relative FILE is taken from the CLI's working
// directory.

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "absl/strings/str_format.h"
#include "ipc/methods/bgp.h"
#include "ipc/types_convert.h"
#include "rtrmgr/cli/command.h"
#include "rtrmgr/cli/queries.h"

namespace sluice::rtrmgr::cli {
namespace {

using ipc::methods::bgp::kDumpTable;

// A full table takes seconds to write: at least this long for the call.
constexpr int kDumpTimeoutMs = 10 * 60 * 1000;

}  // namespace

int RunDump(const std::vector<std::string>& args, Context& c) {
  const bool good = (args.size() == 3 || (args.size() == 5 && args[3] == "peer")) &&
                    args[0] == "bgp" && args[1] == "table";
  if (!good) {
    *c.err << Usage(*FindCommand("dump"));
    return kUsage;
  }
  bgp::v1::DumpTableRequest q;
  std::error_code ec;
  const std::filesystem::path file = std::filesystem::absolute(args[2], ec);
  if (ec) {
    *c.err << "sluice dump bgp table: " << args[2] << ": " << ec.message() << "\n";
    return kUsage;
  }
  q.set_path(file.lexically_normal().string());
  if (args.size() == 5) {
    absl::StatusOr<net::IPAddress> peer = net::IPAddress::Parse(args[4]);
    if (!peer.ok()) {
      *c.err << "sluice dump bgp table: " << peer.status().message() << "\n";
      return kUsage;
    }
    ipc::ToProto(*peer, q.mutable_adj_rib_in_peer());
  }
  SyncClient client(c.finder_address, std::max(c.timeout_ms, kDumpTimeoutMs));
  absl::StatusOr<bgp::v1::DumpTableReply> r = client.Call("bgp", kDumpTable, q);
  if (!r.ok()) {
    *c.err << "sluice dump bgp table: " << r.status().message() << "\n";
    return kFailed;
  }
  *c.out << absl::StrFormat("%s: %d prefixes, %d routes, %d octets in %.1f s (%.1f s reading)\n",
                            r->path(), r->prefixes(), r->routes(), r->octets(), r->seconds(),
                            r->loop_seconds());
  return kOk;
}

}  // namespace sluice::rtrmgr::cli
