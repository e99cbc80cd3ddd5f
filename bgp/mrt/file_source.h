#pragma once
// FileSource: the bytes of a file, decompressed on the fly when it is gzip (zlib) or bzip2
// (libbz2) — recognised by their magic numbers, whatever the file name — or read as is.
//
// A compressed stream that ends early (a cut-off download) is not an error here: Read() returns
// what could be decompressed and truncated() says the stream was cut.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace sluice::bgp::mrt {

class FileSource {
 public:
  enum class Compression { kNone, kGzip, kBzip2 };

  // Errors: NotFound / PermissionDenied / Internal naming the path.
  static absl::StatusOr<std::unique_ptr<FileSource>> Open(const std::string& path);
  virtual ~FileSource() = default;

  // Reads up to `n` octets; returns how many were read (0 at the end of the data).
  virtual size_t Read(uint8_t* out, size_t n) = 0;
  // True when the compressed stream ended before its end marker (only meaningful after Read()
  // returned 0).
  virtual bool truncated() const = 0;
  // A decompression error other than truncation (corrupt data), empty if none.
  virtual std::string error() const = 0;
  virtual Compression compression() const = 0;
};

}  // namespace sluice::bgp::mrt
