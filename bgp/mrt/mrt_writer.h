#pragma once
// MrtWriter: writes MRT files (RFC 6396) — TABLE_DUMP_V2 RIB dumps (PEER_INDEX_TABLE then
// RIB_IPV4/IPV6_UNICAST/MULTICAST records, with the ADD-PATH subtypes of RFC 8050) and BGP4MP /
// BGP4MP_ET message logs (MESSAGE, MESSAGE_AS4 and their ADD-PATH and LOCAL variants,
// STATE_CHANGE, STATE_CHANGE_AS4). Files ending in ".gz" are gzip-compressed (zlib).
//
//   ASSIGN_OR_RETURN(auto w, MrtWriter::Open("rib.mrt.gz"));
//   RETURN_IF_ERROR(w->WritePeerIndexTable(now, table));
//   RETURN_IF_ERROR(w->WriteRib(now, seq++, prefix, Safi::kUnicast, entries));
//   RETURN_IF_ERROR(w->Close());
//
// RIB entry attributes are written as RFC 6396 §4.3.4 says: 4-octet AS numbers, and an
// MP_REACH_NLRI holding only the nexthop.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "bgp/mrt/mrt_records.h"

namespace sluice::bgp::mrt {

class MrtWriter {
 public:
  // zlib's own buffer size.
  static constexpr unsigned kDefaultBufferBytes = 8 << 10;
  // For a file written in bursts or all at once (table dumps, the update log): a system call per
  // 128 KiB rather than per 8 KiB.
  static constexpr unsigned kLargeBufferBytes = 128 << 10;
  // Creates (or with `append`, appends to: a gzip file gets another gzip member, which readers
  // take as one stream) the file at `path`. Records are written to the file `buffer_bytes` at a
  // time (twice that before compression), on Flush and on Close: a dump written at once and
  // closed takes a large buffer, for fewer system calls. Errors: Internal naming the path and
  // the system's reason (strerror) when it cannot be opened.
  static absl::StatusOr<std::unique_ptr<MrtWriter>> Open(
      const std::string& path, bool append = false, unsigned buffer_bytes = kDefaultBufferBytes);
  // Appends the records to `out` (uncompressed) instead of a file.
  explicit MrtWriter(std::vector<uint8_t>* out);
  ~MrtWriter();

  absl::Status WritePeerIndexTable(uint32_t timestamp, const PeerIndexTable& table);
  // One RIB record; `entries` refer to the last PEER_INDEX_TABLE by peer_index. ADD-PATH
  // subtypes are used when `add_path`. Errors: InvalidArgument for an entry without attributes.
  absl::Status WriteRib(uint32_t timestamp, uint32_t sequence, const net::Prefix& prefix, Safi safi,
                        std::span<const RibEntry> entries, bool add_path = false);
  // A message record; BGP4MP_ET (with microseconds) when `extended_time`.
  absl::Status WriteBgp4mpMessage(uint32_t timestamp, uint32_t microseconds, bool extended_time,
                                  const Bgp4mpMessage& message);
  absl::Status WriteBgp4mpStateChange(uint32_t timestamp, uint32_t microseconds, bool extended_time,
                                      bool as4, const Bgp4mpStateChange& change);
  // Hands what is buffered to the operating system (a readable file so far; with gzip, a
  // sync flush that costs some compression). Errors: Internal when writing failed.
  absl::Status Flush();
  // Flushes and closes the file. Errors: Internal when writing failed.
  absl::Status Close();

 private:
  MrtWriter() = default;
  // Writes a record of body_ with its common header.
  absl::Status Emit(uint32_t timestamp, uint16_t type, uint16_t subtype, bool extended_time = false,
                    uint32_t microseconds = 0);

  void* gz_ = nullptr;  // gzFile
  std::vector<uint8_t>* memory_ = nullptr;
  std::string path_;
  // Reused by every record (no allocation per record): its body, a RIB entry's attributes.
  std::vector<uint8_t> body_, attributes_;
};

// RFC 6396 §4.3.4 attribute block of a RIB entry for `attrs` (for tests and for the writer).
void EncodeRibAttributes(const PathAttributes& attrs, std::vector<uint8_t>* out);

}  // namespace sluice::bgp::mrt
