#pragma once
// UpdateBatch: the UPDATEs of one session handed to the parse pool together (PeerSession with a
// parse pool, PBTS). The messages one read of the connection brought are copied out of its
// buffer into one batch, decoded in order by one job on the pool, and handed back to the event
// loop by one handler: a wake-up of the pool and of the loop per read instead of per UPDATE.
//
//   UpdateBatch batch;
//   batch.Add(message);                    // on the loop, as the connection frames each UPDATE
//   UpdateBatch::Decoded d = batch.Decode(decoder);  // on the pool
//   for (UpdateMessage& u : d.updates) ...           // back on the loop, in order; then d.fault

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bgp/session/handler_fault.h"
#include "bgp/wire/byte_io.h"
#include "bgp/wire/update_decoder.h"
#include "bgp/wire/update_message.h"

namespace sluice::bgp {

class UpdateBatch {
 public:
  // Copies `message` (a whole UPDATE, header included) to the end of the batch.
  void Add(Bytes message);
  size_t size() const { return ends_.size(); }
  bool empty() const { return ends_.empty(); }

  struct Decoded {
    std::vector<UpdateMessage> updates;  // in the order added
    // An exception from the decoder (handler_fault.h): `updates` holds the messages before the
    // one that raised it, and the rest of the batch was not decoded.
    std::optional<HandlerFault> fault;

    // Starts loading what the loop reads of updates[i] (no-op past the end): its attribute set's
    // count and its first NLRI, which a pool thread wrote. The loop calls it a few UPDATEs ahead.
    void Prefetch(size_t i) const {
      if (i >= updates.size()) return;
      const UpdateMessage& u = updates[i];
      u.attributes.Prefetch();
      if (!u.announced.empty()) __builtin_prefetch(u.announced.data());
      if (!u.withdrawn.empty()) __builtin_prefetch(u.withdrawn.data());
    }
  };
  // Decodes every message in order with `decoder` (which keeps the session's state: the
  // negotiated capabilities, the attribute store it interns into).
  Decoded Decode(UpdateDecoder& decoder) const;

 private:
  std::vector<uint8_t> bytes_;  // the messages back to back
  std::vector<size_t> ends_;    // where each ends in bytes_
};

}  // namespace sluice::bgp
