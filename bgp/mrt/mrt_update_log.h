#pragma once
// MrtUpdateLog: a live MRT log (RFC 6396) of what every BGP session receives, as the public
// collectors write theirs ("updates" files): a BGP4MP_ET record (§3, microsecond timestamps) for
//   - every message received, whole and before decoding (§4.4.2 BGP4MP_MESSAGE_AS4, or
//     BGP4MP_MESSAGE (§4.4.2) when the session did not negotiate 4-octet AS numbers, RFC 6793,
//     so that readers decode its AS_PATHs with 2-octet AS numbers), and
//   - every FSM state change (§4.4.4 BGP4MP_STATE_CHANGE_AS4, states numbered as in RFC 4271
//     §8.2.2: Idle 1 ... Established 6).
// It is a MessageTap (bgp/session/message_tap.h): PeerManager::AddTap(log) feeds it on the event
// loop. The loop only copies each message into a bounded queue; a writer thread encodes and
// writes. When the queue holds `queue_limit` octets a record is dropped and counted (stats():
// dropped), never waited for: a slow disk never slows the sessions.
//
// Files: the name is `pattern` (strftime, UTC: mrt_path.h) filled in with the start of the
// `rotate` period a record falls in; at the end of each period the file is closed and the next
// one opened (a file per period, empty when nothing was received). Files are appended to, so a
// log started again within a period (a new configuration, a restart of sluice-bgp) keeps what
// the period's file held, and a pattern that names the same file for two periods keeps one
// growing file. A name ending in ".gz" is gzip-compressed (a member per opening). A file that
// cannot be opened (a missing directory, no permission) drops the period's records, counted, with
// the reason in stats().error; opening is tried again at most once a second. A record reaches its
// file (the kernel's page cache: no fsync) at most about kFlushDelay after it was written to the
// file's buffer, however quiet the sessions are afterwards.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "bgp/mrt/mrt_writer.h"
#include "bgp/session/message_tap.h"

namespace sluice::bgp::mrt {

struct UpdateLogOptions {
  std::string pattern;                        // strftime pattern of the file names
  absl::Duration rotate = absl::Minutes(15);  // a new file every period; at least 1 s
  size_t queue_limit = size_t(64) << 20;      // octets of messages waiting for the writer
};

struct UpdateLogStats {
  uint64_t messages = 0;       // BGP4MP(_ET) MESSAGE records written
  uint64_t state_changes = 0;  // STATE_CHANGE_AS4 records written
  uint64_t dropped = 0;        // records lost: queue full, or no file to write them to
  uint64_t files = 0;          // files opened
  std::string file;            // the file being written ("" when none is open)
  std::string error;           // the last error opening or writing a file ("" if none)
};

class MrtUpdateLog : public MessageTap {
 public:
  // Starts the writer thread and opens the current period's file. Errors: InvalidArgument for
  // an empty or unusable pattern or a `rotate` under 1 s. (A file that cannot be opened is not
  // an error here: see stats().)
  static absl::StatusOr<std::unique_ptr<MrtUpdateLog>> Start(UpdateLogOptions options);
  // The checks of Start, without starting.
  static absl::Status Check(const UpdateLogOptions& options);
  // Writes what is queued, closes the file and joins the writer thread.
  ~MrtUpdateLog() override;

  // MessageTap, on the event loop.
  void OnStateChange(const TapPeer& peer, FsmState old_state, FsmState new_state) override;
  void OnMessageReceived(const TapPeer& peer, std::span<const uint8_t> message) override;

  // Waits until every record queued before the call is written and flushed to the file.
  void Flush();
  UpdateLogStats stats() const;
  const UpdateLogOptions& options() const { return options_; }

 private:
  struct Item {
    absl::Time time;
    bool state_change = false;
    bool as4 = true;
    uint16_t old_state = 0, new_state = 0;
    uint32_t peer_as = 0, local_as = 0;
    net::IPAddress peer_address, local_address;
    size_t offset = 0, length = 0;  // the message's octets in the queue's `bytes`
  };
  // Records and their messages' octets (no allocation per message). The queue is a list of
  // chunks, so that it grows without moving what it holds, and written chunks are kept for
  // reuse (at most kSpareChunks), their memory already in place: when the writer falls behind
  // the loop, the loop's cost per message stays a copy.
  struct Chunk {
    std::vector<Item> items;
    std::vector<uint8_t> bytes;
  };
  using Chunks = std::vector<std::unique_ptr<Chunk>>;
  static constexpr size_t kChunkItems = 2048;
  static constexpr size_t kChunkOctets = size_t{256} << 10;  // above a BGP message's 65,535
  static constexpr size_t kSpareChunks = 4;
  // The writer takes a burst when it holds kGatherOctets or kGather after its first record.
  static constexpr size_t kGatherOctets = size_t{1} << 20;
  static constexpr std::chrono::milliseconds kGather{10};
  // The file's buffer (MrtWriter::kLargeBufferBytes) is flushed this long after the first record
  // it took since the last flush.
  static constexpr absl::Duration kFlushDelay = absl::Seconds(1);

  explicit MrtUpdateLog(UpdateLogOptions options);
  void Enqueue(Item item, std::span<const uint8_t> message);
  // Called with mu_ held: the chunk that takes a message of `octets` next.
  Chunk& ChunkForLocked(size_t octets);
  // Called with mu_ held: empties the written `chunks`, keeping some for reuse.
  void RecycleLocked(Chunks& chunks);
  void Run();
  // Writer thread: the file for the period starting at `period` is open (or its opening failed).
  // Periods only move forward: a record queued before a rotation goes in the newer file.
  void EnsureFile(absl::Time period);
  void CloseFile();
  // Flushes the file's buffer when asked (`asked`) or when its records have waited kFlushDelay.
  void MaybeFlush(bool asked);
  // Writes one record, counting it in tally_.
  void Write(const Item& item, std::span<const uint8_t> message);
  // Called with mu_ held: adds tally_ to stats_ (once per burst, not a lock per record).
  void MergeTallyLocked();

  const UpdateLogOptions options_;
  // Shared with the writer thread under mu_.
  mutable std::mutex mu_;
  std::condition_variable wake_, flushed_;
  Chunks queue_;
  Chunks spare_;
  size_t queued_octets_ = 0;
  bool stop_ = false;
  uint64_t flush_asked_ = 0, flush_done_ = 0;
  UpdateLogStats stats_;
  // Writer thread only.
  struct Tally {
    uint64_t messages = 0, state_changes = 0, dropped = 0;
    std::string error;
  };
  Tally tally_;  // what this burst wrote and lost, for stats_
  std::unique_ptr<MrtWriter> writer_;
  std::string writer_name_;                        // the open file's name
  absl::Time period_ = absl::InfinitePast();       // of the open file (or of the failed attempt)
  absl::Time flush_due_ = absl::InfiniteFuture();  // when the buffered records must be flushed
  absl::Time next_attempt_ = absl::InfinitePast();
  uint64_t dropped_reported_ = 0;
  absl::Time next_drop_report_ = absl::InfinitePast();
  std::thread thread_;
};

}  // namespace sluice::bgp::mrt
