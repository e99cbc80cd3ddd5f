#pragma once
// MrtTableDump: one TABLE_DUMP_V2 file (RFC 6396 §4.3) written on its own thread: the
// PEER_INDEX_TABLE (§4.3.1) first, then a RIB_IPV4_UNICAST or RIB_IPV6_UNICAST record (§4.3.2)
// per prefix, each with the prefix's routes (one per peer, §4.3.4 attribute encoding).
//
// The caller reads routes where they live (the event loop) page by page and hands each page
// over with AddPage; encoding, compression (a path ending in ".gz") and writing happen on the
// dump's thread. The file is written as PATH.partial and renamed to PATH once complete, so a
// file under its final name is always whole.
//
//   ASSIGN_OR_RETURN(auto dump, MrtTableDump::Begin(path, table, absl::Now()));
//   while (more) dump->AddPage(NextPage());          // prefix order within each family
//   dump->Finish([](absl::Status s, TableDumpResult r) { ... });  // on the dump's thread

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bgp/mrt/mrt_records.h"
#include "bgp/mrt/mrt_writer.h"
#include "bgp/stages/route.h"

namespace sluice::bgp::mrt {

struct TableDumpResult {
  std::string path;
  uint64_t prefixes = 0;  // RIB records written
  uint64_t routes = 0;    // RIB entries written
  uint64_t skipped = 0;   // routes of a peer missing from the PEER_INDEX_TABLE, or unencodable
  uint64_t octets = 0;    // of the file
};

class MrtTableDump {
 public:
  // Opens PATH.partial, writes the PEER_INDEX_TABLE and starts the thread. Routes name their
  // peer by BgpRoute::source: a source with `local` set is the table's first peer when that has
  // the address 0.0.0.0 (this router's identity), any other the peer with the source's address;
  // routes of other sources are skipped (counted). `time` is every
  // record's timestamp and every entry's originated time. Errors: InvalidArgument when `path`
  // or PATH.partial exists and is not a regular file (a symbolic link included); Internal saying
  // why the file cannot be created (MrtWriter::Open).
  static absl::StatusOr<std::unique_ptr<MrtTableDump>> Begin(const std::string& path,
                                                             const PeerIndexTable& table,
                                                             absl::Time time);
  // Abandons an unfinished dump: the thread stops, PATH.partial is removed.
  ~MrtTableDump();

  // Hands over routes to write, in prefix order (IPv4 pages before IPv6). Routes of one prefix
  // (one per peer) must be adjacent, in one page.
  void AddPage(std::vector<BgpRoute> routes);
  // Pages handed over and not yet written (the reader waits while this is high).
  size_t pending_pages() const;
  // No more pages: once everything is written the file is closed, renamed to PATH, and `done`
  // runs on the dump's thread. Errors: Internal when writing, closing or renaming failed (the
  // partial file is removed).
  void Finish(std::function<void(absl::Status, TableDumpResult)> done);

 private:
  MrtTableDump() = default;
  void Run();
  absl::Status WritePage(const std::vector<BgpRoute>& page);
  absl::Status Complete();

  // Writer thread only (after Begin).
  std::unique_ptr<MrtWriter> writer_;
  std::string path_;
  uint32_t time_ = 0;
  absl::flat_hash_map<net::IPAddress, uint16_t> peer_index_;
  bool has_local_ = false;
  TableDumpResult result_;
  std::vector<RibEntry> entries_;
  // Shared under mu_.
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::vector<BgpRoute>> pages_;
  bool finishing_ = false, abandon_ = false;
  std::function<void(absl::Status, TableDumpResult)> done_;
  std::thread thread_;
};

}  // namespace sluice::bgp::mrt
