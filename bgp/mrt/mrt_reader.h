#pragma once
// MrtReader: the records of an MRT file (RFC 6396 §2), one at a time, without loading the file:
//
//   ASSIGN_OR_RETURN(auto reader, MrtReader::Open(path));   // .gz, .bz2 or plain
//   MrtRecord record;
//   while (reader->Next(&record)) { ... record.body ... }
//   if (reader->truncated()) log(reader->error());           // earlier records were delivered
//
// A file whose last record (or compressed stream) is cut off yields every whole record before
// it, then stops with truncated() true and error() saying where.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "bgp/mrt/file_source.h"
#include "bgp/wire/byte_io.h"

namespace sluice::bgp::mrt {

// RFC 6396 §4 record types this project reads.
enum class MrtType : uint16_t {
  kTableDump = 12,
  kTableDumpV2 = 13,
  kBgp4mp = 16,
  kBgp4mpEt = 17,
};

struct MrtRecord {
  uint32_t timestamp = 0;     // seconds since 1970 (UTC)
  uint32_t microseconds = 0;  // BGP4MP_ET only (RFC 6396 §3)
  uint16_t type = 0;
  uint16_t subtype = 0;
  Bytes body;           // the message; points into the reader, valid until Next()
  uint64_t offset = 0;  // of the record header in the (decompressed) stream
};

class MrtReader {
 public:
  // Errors: those of FileSource::Open.
  static absl::StatusOr<std::unique_ptr<MrtReader>> Open(const std::string& path);
  // Reads records from memory (`data` must outlive the reader) — for tests and fuzzing.
  explicit MrtReader(Bytes data);

  // The next record; false at the end of the data, or when the rest is cut off or unreadable.
  bool Next(MrtRecord* record);

  // After Next() returned false: true when the last record (or the compressed stream) was cut
  // off; error() then says what was missing.
  bool truncated() const { return truncated_; }
  // Why reading stopped early (truncation or a decompression error); empty at a clean end.
  const std::string& error() const { return error_; }
  uint64_t records() const { return records_; }

 private:
  explicit MrtReader(std::unique_ptr<FileSource> source);
  // Makes at least `n` octets available from pos_; false if the data ends first.
  bool Fill(size_t n);

  std::unique_ptr<FileSource> source_;
  Bytes memory_;
  std::vector<uint8_t> buffer_;
  size_t pos_ = 0, end_ = 0;
  uint64_t offset_ = 0;  // stream offset of buffer_[pos_]
  uint64_t records_ = 0;
  bool truncated_ = false;
  bool done_ = false;
  std::string error_;
};

}  // namespace sluice::bgp::mrt
