// libFuzzer target: MRT data (any record types) through the reader and every record decoder, by
// way of the bgpdump formatter (PEER_INDEX_TABLE, RIB entries, TABLE_DUMP, BGP4MP messages and
// state changes, and the UPDATEs inside).
#include <cstddef>
#include <cstdint>
#include <string>

#include "bgp/mrt/bgpdump_format.h"
#include "bgp/mrt/mrt_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace sluice::bgp;
  AttributeStore store;
  {
    mrt::BgpdumpFormatter formatter(&store);
    mrt::MrtReader reader(Bytes(data, size));
    mrt::MrtRecord record;
    std::string out;
    while (reader.Next(&record)) {
      out.clear();
      formatter.Format(record, &out);
    }
  }
  return 0;
}
