// PeerSession's parse pool (PBTS): the UPDATEs of one read decoded together off the event loop
// and delivered back on it in order (update_batch.h).

#include <pthread.h>

#include <boost/asio/post.hpp>

#include "bgp/session/peer_session.h"
#include "stage/route_arrival.h"

namespace sluice::bgp {

namespace {
// The pool's threads are named on their first job, so that top -H, perf and the benchmarks tell
// them from the event loop.
void NameParseThread() {
  thread_local bool named = false;
  if (named) return;
  pthread_setname_np(pthread_self(), "bgp-parse");
  named = true;
}
}  // namespace

void PeerSession::ParseOffLoop(Bytes message) {
  if (!parse_strand_) parse_strand_.emplace(boost::asio::make_strand(parse_pool_->get_executor()));
  if (!parse_batch_.empty() && parse_batch_generation_ != session_generation_) DropParseBatch();
  // Bounded: the loop waits while the pool is kMaxParsing UPDATEs behind.
  if (parsing_->load(std::memory_order_acquire) >= kMaxParsing) {
    FlushParseBatch();  // counted among them
    for (int n = parsing_->load(std::memory_order_acquire); n >= kMaxParsing;
         n = parsing_->load(std::memory_order_acquire)) {
      parsing_->wait(n, std::memory_order_acquire);
    }
  }
  parsing_->fetch_add(1, std::memory_order_acq_rel);
  if (parse_batch_.empty()) {
    parse_batch_generation_ = session_generation_;
    parse_batch_arrival_ = stage::MonotonicNowNs();
    // Runs after the connection's handler (Connection::HandleSlice) has framed the whole read.
    boost::asio::post(io_, [this, alive = std::weak_ptr<bool>(alive_)] {
      if (!alive.expired()) FlushParseBatch();
    });
  }
  parse_batch_.Add(message);
}

void PeerSession::DropParseBatch() {
  parsing_->fetch_sub(int(parse_batch_.size()), std::memory_order_acq_rel);
  parsing_->notify_all();
  parse_batch_ = UpdateBatch();
}

void PeerSession::FlushParseBatch() {
  if (parse_batch_.empty()) return;
  if (parse_batch_generation_ != session_generation_ || teardown_pending_ || !decoder_) {
    return DropParseBatch();
  }
  boost::asio::post(
      *parse_strand_, [this, batch = std::move(parse_batch_), decoder = decoder_,
                       generation = parse_batch_generation_, alive = std::weak_ptr<bool>(alive_),
                       parsing = parsing_, &io = io_, arrival = parse_batch_arrival_] {
        NameParseThread();
        auto decoded = std::make_shared<UpdateBatch::Decoded>(batch.Decode(*decoder));
        parsing->fetch_sub(int(batch.size()), std::memory_order_acq_rel);
        parsing->notify_all();
        // `this` is touched only on the loop, once `alive` says the session still exists.
        boost::asio::post(
            io, [this, decoded = std::move(decoded), generation, alive, arrival]() mutable {
              stage::ArrivalScope scope(arrival);
              DeliverParsed(*decoded, generation, alive);
              if (!alive.expired()) FreeOffLoop(std::move(decoded));
            });
      });
  parse_batch_ = UpdateBatch();
}

void PeerSession::FreeOffLoop(std::shared_ptr<UpdateBatch::Decoded> decoded) {
  if (parse_pool_ == nullptr) return;
  if (!parse_strand_) parse_strand_.emplace(boost::asio::make_strand(parse_pool_->get_executor()));
  boost::asio::post(*parse_strand_, [decoded = std::move(decoded)]() mutable { decoded.reset(); });
}

void PeerSession::DeliverParsed(UpdateBatch::Decoded& decoded, uint64_t generation,
                                const std::weak_ptr<bool>& alive) {
  auto current = [&] {
    return !alive.expired() && generation == session_generation_ && !teardown_pending_;
  };
  // One read's UPDATEs are pushed downstream together, as when the loop decodes them.
  constexpr size_t kAhead = 2;
  for (size_t i = 0; i < kAhead; ++i) decoded.Prefetch(i);
  for (size_t i = 0; i < decoded.updates.size(); ++i) {
    if (!current()) break;
    decoded.Prefetch(i + kAhead);
    BeginUpdates();
    Guard("an UPDATE", [&] { DeliverUpdate(decoded.updates[i]); });
  }
  if (alive.expired()) return;
  Guard("the end of a read", [&] { EndUpdates(); });
  if (decoded.fault && current()) Fault("parsing an UPDATE", *decoded.fault);
}

}  // namespace sluice::bgp
