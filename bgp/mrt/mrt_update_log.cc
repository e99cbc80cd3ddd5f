#include "bgp/mrt/mrt_update_log.h"

#include <pthread.h>

#include <algorithm>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "base/log.h"
#include "bgp/mrt/mrt_path.h"

namespace sluice::bgp::mrt {
namespace {

constexpr uint32_t kAsTrans = 23456;  // RFC 6793 §9

// RFC 6396 §4.4.1 numbers the states as RFC 4271 §8.2.2 lists them, from Idle = 1.
uint16_t MrtState(FsmState s) { return uint16_t(uint16_t(s) + 1); }

std::chrono::system_clock::time_point ToChrono(absl::Time t) {
  return std::chrono::system_clock::from_time_t(0) +
         std::chrono::microseconds(absl::ToUnixMicros(t));
}

}  // namespace

absl::Status MrtUpdateLog::Check(const UpdateLogOptions& options) {
  if (options.rotate < absl::Seconds(1)) {
    return absl::InvalidArgumentError("the update log's rotation period must be at least 1 s");
  }
  return FormatMrtPath(options.pattern, absl::Now()).status();
}

absl::StatusOr<std::unique_ptr<MrtUpdateLog>> MrtUpdateLog::Start(UpdateLogOptions options) {
  if (absl::Status s = Check(options); !s.ok()) return s;
  std::unique_ptr<MrtUpdateLog> log(new MrtUpdateLog(std::move(options)));
  log->thread_ = std::thread([p = log.get()] {
    pthread_setname_np(pthread_self(), "bgp-mrt-log");  // top -H, perf, the benchmarks
    p->Run();
  });
  return log;
}

MrtUpdateLog::MrtUpdateLog(UpdateLogOptions options) : options_(std::move(options)) {}

MrtUpdateLog::~MrtUpdateLog() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void MrtUpdateLog::OnStateChange(const TapPeer& peer, FsmState old_state, FsmState new_state) {
  Item item;
  item.time = absl::Now();
  item.state_change = true;
  item.old_state = MrtState(old_state);
  item.new_state = MrtState(new_state);
  item.peer_as = peer.remote_as;
  item.local_as = peer.local_as;
  item.peer_address = peer.remote_address;
  item.local_address = peer.local_address;
  Enqueue(std::move(item), {});
}

void MrtUpdateLog::OnMessageReceived(const TapPeer& peer, std::span<const uint8_t> message) {
  Item item;
  item.time = absl::Now();
  item.as4 = peer.four_octet_as;
  item.peer_as = item.as4 || peer.remote_as <= 0xffff ? peer.remote_as : kAsTrans;
  item.local_as = item.as4 || peer.local_as <= 0xffff ? peer.local_as : kAsTrans;
  item.peer_address = peer.remote_address;
  item.local_address = peer.local_address;
  Enqueue(std::move(item), message);
}

void MrtUpdateLog::Enqueue(Item item, std::span<const uint8_t> message) {
  const size_t octets = message.size() + 64;
  {
    std::lock_guard lock(mu_);
    if (queued_octets_ + octets > options_.queue_limit) {
      ++stats_.dropped;
      return;
    }
    const bool was_empty = queue_.empty();
    queued_octets_ += octets;
    Chunk& chunk = ChunkForLocked(message.size());
    item.offset = chunk.bytes.size();
    item.length = message.size();
    chunk.bytes.insert(chunk.bytes.end(), message.begin(), message.end());
    chunk.items.push_back(std::move(item));
    // The writer waits for the first record, then for kGatherOctets or kGather.
    const bool crossed = queued_octets_ >= kGatherOctets && queued_octets_ - octets < kGatherOctets;
    if (!was_empty && !crossed) return;
  }
  wake_.notify_one();
}

MrtUpdateLog::Chunk& MrtUpdateLog::ChunkForLocked(size_t octets) {
  if (!queue_.empty()) {
    Chunk& last = *queue_.back();
    if (last.items.size() < kChunkItems && last.bytes.size() + octets <= last.bytes.capacity()) {
      return last;
    }
  }
  if (!spare_.empty()) {
    queue_.push_back(std::move(spare_.back()));
    spare_.pop_back();
  } else {
    queue_.push_back(std::make_unique<Chunk>());
    queue_.back()->items.reserve(kChunkItems);
    queue_.back()->bytes.reserve(kChunkOctets);
  }
  return *queue_.back();
}

void MrtUpdateLog::RecycleLocked(Chunks& chunks) {
  for (std::unique_ptr<Chunk>& chunk : chunks) {
    if (spare_.size() >= kSpareChunks) break;
    chunk->items.clear();
    chunk->bytes.clear();
    spare_.push_back(std::move(chunk));
  }
  chunks.clear();
}

void MrtUpdateLog::Flush() {
  std::unique_lock lock(mu_);
  const uint64_t ticket = ++flush_asked_;
  wake_.notify_one();
  flushed_.wait(lock, [&] { return flush_done_ >= ticket || !thread_.joinable(); });
}

UpdateLogStats MrtUpdateLog::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void MrtUpdateLog::Run() {
  Chunks batch;
  for (;;) {
    bool stop = false, flush_wanted = false;
    uint64_t flush = 0;
    {
      std::unique_lock lock(mu_);
      const absl::Time period_end =
          period_ == absl::InfinitePast() ? absl::Now() : period_ + options_.rotate;
      const absl::Time deadline = std::min(period_end, flush_due_);
      auto asked = [&] { return stop_ || flush_asked_ > flush_done_ || absl::Now() >= deadline; };
      wake_.wait_until(lock, ToChrono(deadline), [&] { return asked() || !queue_.empty(); });
      // The first record of a burst woke us: let the burst gather (a wake-up per message would
      // cost the loop a futex call and us a context switch each).
      wake_.wait_for(lock, kGather, [&] { return asked() || queued_octets_ >= kGatherOctets; });
      batch.swap(queue_);
      queued_octets_ = 0;
      stop = stop_;
      flush = flush_asked_;
      flush_wanted = flush_asked_ > flush_done_;
    }
    for (const std::unique_ptr<Chunk>& chunk : batch) {
      for (const Item& item : chunk->items) {
        Write(item, std::span<const uint8_t>(chunk->bytes).subspan(item.offset, item.length));
      }
    }
    // The current period's file, even when nothing arrives in it.
    EnsureFile(PeriodStart(absl::Now(), options_.rotate));
    MaybeFlush(flush_wanted);
    {
      std::lock_guard lock(mu_);
      RecycleLocked(batch);
      MergeTallyLocked();
      // Drops are reported at most every 10 s, with how many since the last report.
      if (stats_.dropped > dropped_reported_ && absl::Now() >= next_drop_report_) {
        next_drop_report_ = absl::Now() + absl::Seconds(10);
        SLUICE_LOG(kWarning) << "MRT update log: " << stats_.dropped - dropped_reported_
                             << " records dropped" << (stats_.error.empty() ? "" : ": ")
                             << stats_.error;
        dropped_reported_ = stats_.dropped;
      }
      flush_done_ = flush;
    }
    flushed_.notify_all();
    if (stop) break;
  }
  CloseFile();
}

void MrtUpdateLog::EnsureFile(absl::Time period) {
  if (period <= period_ && writer_) return;  // every record but a period's first: no clock read
  const absl::Time now = absl::Now();
  if (period <= period_ && now < next_attempt_) return;
  period = std::max(period, period_);
  absl::StatusOr<std::string> name = FormatMrtPath(options_.pattern, period);
  if (writer_ && name.ok() && *name == writer_name_) {
    period_ = period;  // the pattern names the same file: keep writing it
    return;
  }
  CloseFile();
  period_ = period;
  next_attempt_ = now + absl::Seconds(1);
  absl::StatusOr<std::unique_ptr<MrtWriter>> w =
      name.ok() ? MrtWriter::Open(*name, /*append=*/true, MrtWriter::kLargeBufferBytes)
                : absl::StatusOr<std::unique_ptr<MrtWriter>>(name.status());
  if (w.ok()) writer_name_ = *name;
  std::lock_guard lock(mu_);
  if (!w.ok()) {
    if (stats_.error != w.status().message()) {
      SLUICE_LOG(kWarning) << "MRT update log: " << w.status().message();
    }
    stats_.error = std::string(w.status().message());
    return;
  }
  writer_ = std::move(*w);
  stats_.file = *name;
  ++stats_.files;
}

void MrtUpdateLog::MaybeFlush(bool asked) {
  if (!writer_ || flush_due_ == absl::InfiniteFuture()) return;  // nothing buffered
  if (!asked && absl::Now() < flush_due_) return;
  flush_due_ = absl::InfiniteFuture();
  absl::Status s = writer_->Flush();
  if (!s.ok()) tally_.error = std::string(s.message());
}

void MrtUpdateLog::CloseFile() {
  if (!writer_) return;
  flush_due_ = absl::InfiniteFuture();  // closing flushes
  absl::Status s = writer_->Close();
  writer_.reset();
  std::lock_guard lock(mu_);
  stats_.file.clear();
  if (!s.ok()) stats_.error = std::string(s.message());
}

void MrtUpdateLog::Write(const Item& item, std::span<const uint8_t> message) {
  // Nearly every record falls in the open file's period (or an earlier one, which goes in it too):
  // no period arithmetic for those.
  if (!writer_ || item.time >= period_ + options_.rotate) {
    EnsureFile(PeriodStart(item.time, options_.rotate));
  }
  if (!writer_) {
    ++tally_.dropped;
    return;
  }
  const int64_t us = absl::ToUnixMicros(item.time);
  const uint32_t seconds = uint32_t(us / 1000000);
  const uint32_t micros = uint32_t(us % 1000000);
  absl::Status s;
  if (item.state_change) {
    Bgp4mpStateChange c;
    c.peer_as = item.peer_as;
    c.local_as = item.local_as;
    c.peer_address = item.peer_address;
    c.local_address = item.local_address;
    c.old_state = item.old_state;
    c.new_state = item.new_state;
    s = writer_->WriteBgp4mpStateChange(seconds, micros, true, /*as4=*/true, c);
  } else {
    Bgp4mpMessage m;
    m.peer_as = item.peer_as;
    m.local_as = item.local_as;
    m.peer_address = item.peer_address;
    m.local_address = item.local_address;
    m.as4 = item.as4;
    m.message = message;
    s = writer_->WriteBgp4mpMessage(seconds, micros, true, m);
  }
  if (!s.ok()) {
    ++tally_.dropped;
    tally_.error = std::string(s.message());
    return;
  }
  ++(item.state_change ? tally_.state_changes : tally_.messages);
  if (flush_due_ == absl::InfiniteFuture()) flush_due_ = absl::Now() + kFlushDelay;
}

void MrtUpdateLog::MergeTallyLocked() {
  stats_.messages += tally_.messages;
  stats_.state_changes += tally_.state_changes;
  stats_.dropped += tally_.dropped;
  if (!tally_.error.empty()) stats_.error = std::move(tally_.error);
  tally_ = Tally();
}

}  // namespace sluice::bgp::mrt
