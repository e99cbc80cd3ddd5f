#include "bgp/session/update_batch.h"

namespace sluice::bgp {

void UpdateBatch::Add(Bytes message) {
  bytes_.insert(bytes_.end(), message.begin(), message.end());
  ends_.push_back(bytes_.size());
}

UpdateBatch::Decoded UpdateBatch::Decode(UpdateDecoder& decoder) const {
  Decoded out;
  out.updates.reserve(ends_.size());
  size_t begin = 0;
  for (size_t end : ends_) {
    out.fault = CatchFault([&] {
      UpdateMessage update;
      decoder.Decode(Bytes(bytes_.data() + begin, end - begin), &update);
      out.updates.push_back(std::move(update));
    });
    if (out.fault) break;
    begin = end;
  }
  return out;
}

}  // namespace sluice::bgp
