#pragma once
// ShardRunner: the engine of the shard stage (DESIGN.md § The shard stage). It runs N
// shards — each a sub-network of stages built by a factory and owned by one worker thread with its
// own event loop and Plumber — and carries work to them and results back in batches.
//
//   main loop                               shard i (worker thread i, its own io_context)
//   Send(i, item) ... EndEpoch()  ──batch──▶ process(shard, items); end_epoch(shard, e)
//   Command(i, fn)   (in order with items)  fn(shard)
//   deliver(i, outputs); delivered()  ◀──batch── Context::Emit(out) ... (at the end of each run)
//
// Hand-over: one single-producer/single-consumer queue (spsc_queue.h) per direction per shard.
// The producer fills a batch in place; a batch leaves when it holds `batch_items` items, or
// when the current main-loop handler returns (the runner posts a flush after the first item of a
// burst) if the shard is idle — within a burst of input (the last flush less than
// ShardOptions::coalesce ago), up to `coalesce` later, so that one wake-up of the shard carries
// many UPDATEs. A shard still busy with earlier batches gets the open one when it
// runs out (it asks the main loop for it): a loop that hands over after every UPDATE would
// otherwise send batches of a few items, each a wake-up and a delivery round on both sides,
// while the shard could not have started on them sooner. The consumer's loop is woken by one
// post per burst, not per batch. Nothing is locked or allocated per item once the queues have
// grown to their working size.
//
// Epochs: EndEpoch() marks the end of one batch of upstream work (one UPDATE) in every shard's
// stream. Results are delivered epoch by epoch: `deliver` gets each shard's outputs of the
// oldest epoch not yet delivered, once every shard has finished it, then `delivered` runs — so a
// merge point downstream (UPDATE packing) sees what all the shards made of one upstream batch
// together, as the serial pipeline would have — also when an epoch's items reach a shard in two
// batches (its outputs so far leave unmarked and are delivered with the epoch's end). Outputs a
// shard makes on its own between epochs (background slices) go with the epoch it finished last,
// or straight on if that one was delivered already. Within one shard, outputs keep their order.
//
// Commands run on the shard's thread between the items sent before and after them (peer up and
// down, configuration). QueryAsync() runs a function on a shard's thread in order with its input
// and hands the answer to a callback on the main loop, which goes on meanwhile. Query() waits for
// the answer instead (tests, shutdown, rare control): the main loop blocks until that shard has
// worked through what it was sent before. A shard never waits for the main loop, so this cannot
// deadlock.
//
// Backpressure: Send() never waits. When a shard has more than `max_backlog` items not yet
// processed, the runner calls `backpressure(true)` on the main loop, and `backpressure(false)`
// once every such shard is down to half of it; meanwhile the producer stops feeding (a BGP process
// stops reading its sessions, and TCP holds the peers back), so the pipeline moves at the shards'
// speed and memory stays bounded while the main loop goes on with timers and deliveries.
// The outputs are bounded too: a shard with more than `max_out_backlog` outputs not yet delivered
// takes no more input, at the end of an epoch (inside an input batch too), until the main loop has
// delivered all but half of them (its input waits meanwhile, and counts towards its backlog). One
// item can make many outputs (a change for each of many peers), and an epoch's outputs are
// delivered only once every shard has finished it: a shard ahead of the others, or of a main loop
// slower than the shards, would otherwise pile up the outputs of its whole input backlog. Query and
// QueryAll, which make the main loop wait, let such a shard go on.
//
// With shards = 1 and `inline_single` (the default), there is no worker thread: the shard lives on
// the main loop and each epoch is processed when it ends and delivered right after.
//
// Threads: Send, EndEpoch, Command, Flush, the queries, Settle and the destructor on the main
// loop's thread only; `make`, `process`, `end_epoch` and commands on the shard's thread; `deliver`
// and `delivered` on the main loop.

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/prefetch.h"
#include "net/prefix.h"
#include "stage/plumber.h"
#include "stage/spsc_queue.h"

namespace sluice::stage {

// Which of `shards` shards handles `prefix`: a fixed hash (the same in every run) of the
// address block that holds it, its first 16 bits for IPv4 and 32 for IPv6 (a shorter prefix: the
// block at its start). Every route of one prefix goes to the same shard, and so do the prefixes of
// one block. Neighbouring prefixes are often announced together, so more of an UPDATE's prefixes
// land on one shard than with a hash of each whole prefix, and fewer attribute sets and trie
// paths are shared between threads; the shares of a full table stay even (bench/bgp/README.md).
// The price: churn confined to one block (a /16's deaggregates) lands on one shard.
inline int ShardOf(const net::Prefix& prefix, int shards) {
  if (shards <= 1) return 0;
  uint64_t x = prefix.is_v4() ? uint64_t{prefix.v4().value() >> 16}
                              : (prefix.v6().hi() >> 32) | (uint64_t{1} << 32);
  // splitmix64's finalizer.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return static_cast<int>(x % static_cast<uint64_t>(shards));
}

struct ShardOptions {
  int shards = 1;
  size_t batch_items = 1024;   // items per batch before it is handed over
  size_t max_backlog = 65536;  // items sent to one shard and not processed: backpressure(true)
  // Outputs of one shard handed over and not yet delivered past which it takes no more input, at
  // an epoch's end, until the main loop has delivered all but half of them (Backpressure above).
  size_t max_out_backlog = 65536;
  bool inline_single = true;  // shards == 1: no worker thread
  // Within a burst of input, how long an open batch may wait for more before it is handed to an
  // idle shard (ShardRunner::ScheduleFlush); 0: at the end of every main-loop handler.
  std::chrono::microseconds coalesce{500};
  std::string name = "shard";  // worker thread names: "<name>/<i>" (at most 15 characters)
};

template <class Shard, class In, class Out>
class ShardRunner {
  struct Worker;

 public:
  // What a shard's stages use: the shard's loop and Plumber, and the way back to the main loop.
  class Context {
   public:
    int index() const { return w_->index; }
    int shards() const { return runner_->shards(); }
    boost::asio::io_context& io() { return *w_->io; }
    Plumber& plumber() { return *w_->plumber; }
    // Appends an output; it leaves with the current epoch's, or at the end of the current handler.
    Out& Emit() {
      OutBatch* b = &runner_->OpenOut(*w_);
      // A full batch leaves now, as input batches do. One input batch can make an output per
      // peer per change; kept open, that batch would grow by doubling, copying every item, and
      // be freed afterwards for its size.
      if (b->items.size() >= runner_->options_.batch_items && runner_->threaded()) {
        runner_->FinishOut(*w_);
        b = &runner_->OpenOut(*w_);
      }
      base::PrefetchAppendSlot(b->items, kPrefetchAhead);
      b->items.emplace_back();
      w_->unmarked = true;
      return b->items.back();
    }
    void Emit(Out item) { Emit() = std::move(item); }
    // Outputs emitted outside the processing of input (a background slice) leave once the
    // current handler returns; call after emitting them (cheap when repeated).
    void Flush() { runner_->RequestOutFlush(*w_); }

   private:
    friend class ShardRunner;
    ShardRunner* runner_ = nullptr;
    Worker* w_ = nullptr;
  };

  struct Callbacks {
    std::function<std::unique_ptr<Shard>(Context&)> make;    // shard thread
    std::function<void(Shard&, std::span<In>)> process;      // shard thread
    std::function<void(Shard&, uint64_t epoch)> end_epoch;   // shard thread
    std::function<void(int shard, std::span<Out>)> deliver;  // main loop
    std::function<void()> delivered;                         // main loop
    // Optional, main loop: a shard's backlog passed max_backlog (true: stop feeding), or every
    // shard that passed it is down to half of it (false: go on). Calls alternate, true first.
    std::function<void(bool full)> backpressure;
  };

  ShardRunner(boost::asio::io_context& main, ShardOptions options, Callbacks callbacks)
      : main_(main),
        options_(std::move(options)),
        cb_(std::move(callbacks)),
        alive_(std::make_shared<ShardRunner*>(this)) {
    const int n = std::max(1, options_.shards);
    options_.shards = n;
    inline_ = n == 1 && options_.inline_single;
    for (int i = 0; i < n; ++i) {
      auto w = std::make_unique<Worker>();
      w->index = i;
      w->ctx.runner_ = this;
      w->ctx.w_ = w.get();
      if (inline_) {
        w->io = &main_;
      } else {
        w->own_io = std::make_unique<boost::asio::io_context>();
        w->io = w->own_io.get();
      }
      w->plumber = std::make_unique<Plumber>(*w->io);
      workers_.push_back(std::move(w));
    }
    for (auto& w : workers_) {
      if (inline_) {
        w->shard = cb_.make(w->ctx);
        continue;
      }
      Worker* raw = w.get();
      w->guard.emplace(w->io->get_executor());
      std::promise<void> built;
      std::future<void> ready = built.get_future();
      w->thread = std::thread([this, raw, &built] {
        const std::string name = options_.name + "/" + std::to_string(raw->index);
        pthread_setname_np(pthread_self(), name.substr(0, 15).c_str());
        raw->shard = cb_.make(raw->ctx);
        built.set_value();
        WorkerLoop(*raw);
      });
      ready.wait();
    }
  }

  ~ShardRunner() {
    *alive_ = nullptr;
    for (auto& w : workers_) {
      if (inline_) break;
      // The shard's stages go on their own thread, then the loop stops.
      Worker* raw = w.get();
      boost::asio::post(*raw->io, [raw] {
        raw->plumber.reset();  // the stages first: they may use what the shard owns
        raw->shard.reset();
        raw->stopping.store(true, std::memory_order_relaxed);
        raw->guard.reset();
        raw->io->stop();
      });
      raw->thread.join();
    }
    for (auto& w : workers_) {  // inline, or what a stopped loop left behind
      w->plumber.reset();
      w->shard.reset();
    }
  }

  ShardRunner(const ShardRunner&) = delete;
  ShardRunner& operator=(const ShardRunner&) = delete;

  int shards() const { return options_.shards; }
  bool threaded() const { return !inline_; }
  int ShardFor(const net::Prefix& prefix) const { return ShardOf(prefix, options_.shards); }
  uint64_t epoch() const { return epoch_; }
  // The last epoch whose outputs every shard has delivered (main loop).
  uint64_t delivered_epoch() const { return delivered_epoch_; }
  // Between backpressure(true) and backpressure(false) (main loop).
  bool full() const { return full_shards_ > 0; }

  // --- Main loop -----------------------------------------------------------------------------
  // Appends an item for shard `i`; returns it to fill in.
  In& Add(int i) {
    Worker& w = *workers_[i];
    if (w.open_in != nullptr && w.open_in->items.size() >= options_.batch_items) HandOver(w);
    InBatch& b = OpenIn(w);
    base::PrefetchAppendSlot(b.items, kPrefetchAhead);
    b.items.emplace_back();
    return b.items.back();
  }
  void Send(int i, In item) { Add(i) = std::move(item); }

  // Ends an epoch in every shard's stream.
  void EndEpoch() {
    ++epoch_;
    for (auto& w : workers_) {
      InBatch& b = OpenIn(*w);
      b.marks.push_back(Mark{static_cast<uint32_t>(b.items.size()), epoch_, kNoCommand});
    }
    if (inline_) HandOver(*workers_[0]);
  }

  // Runs `fn` on shard `i`'s thread, after the items sent before it.
  void Command(int i, std::function<void(Shard&)> fn) { AddCommand(i, std::move(fn), true); }

 private:
  void AddCommand(int i, std::function<void(Shard&)> fn, bool post_flush) {
    Worker& w = *workers_[i];
    InBatch& b = OpenIn(w, post_flush);
    b.commands.push_back(std::move(fn));
    b.marks.push_back(Mark{static_cast<uint32_t>(b.items.size()), 0,
                           static_cast<uint32_t>(b.commands.size() - 1)});
    if (inline_) HandOver(w);
  }

 public:
  // The same command on every shard (given the shard's index).
  void CommandAll(const std::function<void(Shard&, int)>& fn) {
    for (int i = 0; i < shards(); ++i) {
      Command(i, [fn, i](Shard& s) { fn(s, i); });
    }
  }

  // Hands every open batch over now.
  void Flush() {
    flush_posted_ = false;
    for (auto& w : workers_) {
      if (w->open_in != nullptr) HandOver(*w);
    }
  }

  // Runs `fn(shard)` on shard `i`'s thread after everything sent to it before, then
  // `done(result)` on the main loop — never inside this call, and not at all if the runner is
  // destroyed first. Never waits. `done` is destroyed on the main loop once it has run.
  template <class F, class Done>
  void QueryAsync(int i, F fn, Done done) {
    using R = std::invoke_result_t<F&, Shard&>;
    struct State {
      F fn;
      std::optional<Done> done;
    };
    auto state = std::make_shared<State>(State{std::move(fn), std::move(done)});
    std::weak_ptr<ShardRunner*> weak = alive_;
    boost::asio::io_context* main = &main_;
    AddCommand(
        i,
        [state, weak, main](Shard& s) {
          auto result = std::make_shared<R>(state->fn(s));
          boost::asio::post(*main, [state, weak, result] {
            auto self = weak.lock();
            if (self && *self != nullptr) (*state->done)(std::move(*result));
            state->done.reset();
          });
        },
        true);
  }
  // `fn(shard, index)` on every shard, concurrently (so `fn` must not change what it captured),
  // then `done(results)` on the main loop, results in shard order; as QueryAsync.
  template <class F, class Done>
  void QueryAllAsync(F fn, Done done) {
    using R = std::invoke_result_t<const F&, Shard&, int>;
    struct Gather {
      F fn;
      std::vector<R> out;
      int left;
      std::optional<Done> done;
    };
    auto g = std::make_shared<Gather>(
        Gather{std::move(fn), std::vector<R>(shards()), shards(), std::move(done)});
    for (int i = 0; i < shards(); ++i) {
      QueryAsync(
          i, [g, i](Shard& s) { return std::as_const(g->fn)(s, i); },
          [g, i](R r) {
            g->out[i] = std::move(r);
            if (--g->left > 0) return;
            (*g->done)(std::move(g->out));
            g->done.reset();
          });
    }
  }

  // Runs `fn(shard)` on shard `i`'s thread after everything sent to it before, and returns its
  // result. Blocks the main loop until then.
  template <class F>
  auto Query(int i, F&& fn) -> std::invoke_result_t<F&, Shard&> {
    using R = std::invoke_result_t<F&, Shard&>;
    Worker& w = *workers_[i];
    if (inline_) {
      Flush();
      return fn(*w.shard);
    }
    std::promise<R> promise;
    std::future<R> future = promise.get_future();
    AddCommand(
        i,
        [&fn, &promise](Shard& s) {
          if constexpr (std::is_void_v<R>) {
            fn(s);
            promise.set_value();
          } else {
            promise.set_value(fn(s));
          }
        },
        false);
    HandOver(w);
    Waiting waiting(*this);
    return future.get();
  }
  // `fn(shard, index)` on every shard, concurrently; waits for all.
  template <class F>
  auto QueryAll(F&& fn) -> std::vector<std::invoke_result_t<F&, Shard&, int>> {
    using R = std::invoke_result_t<F&, Shard&, int>;
    std::vector<R> out(shards());
    if (inline_) {
      Flush();
      for (int i = 0; i < shards(); ++i) out[i] = fn(*workers_[i]->shard, i);
      return out;
    }
    std::vector<std::promise<void>> done(shards());
    for (int i = 0; i < shards(); ++i) {
      AddCommand(
          i,
          [&fn, &out, &done, i](Shard& s) {
            out[i] = fn(s, i);
            done[i].set_value();
          },
          false);
      HandOver(*workers_[i]);
    }
    Waiting waiting(*this);
    for (auto& d : done) d.get_future().wait();
    return out;
  }

  // Until nothing is left to do anywhere (for tests and shutdown): every shard has processed its
  // input and has no ready handler (no background slice pending), every output was delivered,
  // and the main loop has no ready handler. Runs the main loop meanwhile.
  void Settle() {
    for (int quiet_rounds = 0; quiet_rounds < 2;) {
      Flush();
      bool busy = false;
      if (!inline_) {
        DeliverWhileShardsWork();
        for (auto& w : workers_) {
          Query(w->index, [](Shard&) { return 0; });  // its input is processed
          // Two probes posted to its loop one after the other: when nothing else is ready
          // there, only the first probe runs between them.
          const uint64_t a = Probe(*w), b = Probe(*w);
          if (b - a > 1) busy = true;
        }
        for (auto& w : workers_) PullOutputs(*w);
        DeliverReady();
      }
      main_.restart();
      if (main_.poll() > 0) busy = true;
      quiet_rounds = busy ? 0 : quiet_rounds + 1;
    }
  }

  // Until every shard has worked through its input, the main loop runs what is posted to it —
  // the shards' outputs are delivered as they come, as they are in a running process. (Waiting
  // in Query() first would leave the main loop idle while the shards work, then the shards idle
  // while it delivers their whole backlog.)
  void DeliverWhileShardsWork() {
    auto guard = boost::asio::make_work_guard(main_);
    main_.restart();
    for (;;) {
      bool working = false;
      for (auto& w : workers_) working = working || backlog(w->index) > 0;
      if (!working) return;
      main_.run_one_for(std::chrono::milliseconds(1));
    }
  }

  // Items handed to shard `i` and not yet processed.
  uint64_t backlog(int i) const {
    const Worker& w = *workers_[i];
    return w.sent_items - w.processed_items.load(std::memory_order_acquire);
  }

  // The shard itself, for code on its own thread (or inline mode).
  Shard& shard(int i) { return *workers_[i]->shard; }

 private:
  static constexpr uint32_t kNoCommand = ~uint32_t{0};
  static constexpr size_t kKeepNodes = 8;  // hand-over queue nodes kept per direction and shard
  // How far ahead of the slot being filled a batch's next slot is prefetched for writing: the
  // batches are reused, so their lines come from the other thread's core (base/prefetch.h).
  static constexpr size_t kPrefetchAhead = 4;
  // Items a fresh output batch has room for before it grows: most of a full batch without
  // doubling from one, and little memory in the many small batches of a trickle (a shard's
  // outputs are larger than its inputs, and their batches' buffers travel to the main loop).
  static constexpr size_t kFreshBatchItems = 256;
  struct Mark {
    uint32_t pos;      // before items[pos]
    uint64_t epoch;    // an epoch ends here (when command == kNoCommand)
    uint32_t command;  // or a command runs here
  };
  struct InBatch {
    std::vector<In> items;
    std::vector<Mark> marks;
    std::vector<std::function<void(Shard&)>> commands;
    void clear() {
      items.clear();
      marks.clear();
      commands.clear();
    }
  };
  struct OutMark {
    uint32_t pos;    // outputs before pos (after the previous mark) are complete ...
    uint64_t epoch;  // ... as of this epoch
  };
  struct OutBatch {
    std::vector<Out> items;
    std::vector<OutMark> marks;
    void clear() {
      items.clear();
      marks.clear();
    }
  };
  struct Worker {
    int index = 0;
    Context ctx;
    std::unique_ptr<boost::asio::io_context> own_io;
    boost::asio::io_context* io = nullptr;
    std::unique_ptr<Plumber> plumber;
    std::unique_ptr<Shard> shard;
    std::thread thread;
    std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> guard;
    std::atomic<bool> stopping{false};
    std::atomic<uint64_t> handlers{0};  // handlers the worker ran

    // Main → shard.
    SpscQueue<InBatch> in;
    std::atomic<bool> in_scheduled{false};
    InBatch* open_in = nullptr;  // main: being filled
    uint64_t sent_items = 0;     // main
    std::atomic<uint64_t> processed_items{0};
    std::atomic<bool> full{false};       // past max_backlog, until processed reaches resume_at
    std::atomic<uint64_t> resume_at{0};  // set by main before it sets full
    std::atomic<bool> held{false};       // an open batch waits for this shard to run out

    // Shard → main.
    SpscQueue<OutBatch> out;
    std::atomic<bool> out_scheduled{false};
    std::atomic<uint64_t> emitted_items{0};    // outputs handed over (shard)
    std::atomic<uint64_t> delivered_items{0};  // outputs delivered (main)
    std::atomic<bool> out_paused{false};       // shard: stopped taking input for its outputs' sake
    OutBatch* open_out = nullptr;              // shard: being filled
    bool unmarked = false;                     // shard: outputs since the last mark
    uint64_t last_epoch = 0;                   // shard: the last epoch processed
    uint64_t marked_epoch = 0;                 // shard: the epoch of the last mark placed
    bool mid_epoch = false;  // shard: items of an epoch not ended yet were processed
    bool in_drain = false;   // shard: inside DrainInput
    // Shard: how far into the front input batch processing got when it stopped for its outputs
    // (the next mark to run, the next item), and the outputs delivered as last read.
    size_t in_mark = 0;
    uint32_t in_pos = 0;
    uint64_t delivered_seen = 0;
    bool out_flush_posted = false;  // shard

    // Main: outputs received, not yet delivered; cursors into pending.front().
    std::deque<OutBatch> pending;
    size_t item_pos = 0;
    size_t mark_pos = 0;
    uint64_t passed = 0;  // the last epoch whose mark was delivered
  };

  // --- Main side: input ----------------------------------------------------------------------
  // The batch being filled for `w`. Unless `post_flush` is false (the caller hands it over at
  // once), a Flush is posted to the main loop so that it leaves when the current handler ends.
  InBatch& OpenIn(Worker& w, bool post_flush = true) {
    if (w.open_in == nullptr) {
      w.open_in = &w.in.Prepare();
      w.open_in->clear();
      // A fresh node gets a whole batch's room at once: the loop fills input batches to
      // batch_items in a burst, and growing one by doubling would copy its routes and touch
      // new memory twice more.
      if (w.open_in->items.capacity() == 0) w.open_in->items.reserve(options_.batch_items);
      if (post_flush && !inline_ && !flush_posted_) ScheduleFlush();
    }
    return *w.open_in;
  }

  // After a quiet spell the open batches leave when the current handler returns; within a burst
  // (the last flush less than `coalesce` ago) they wait up to `coalesce` for more, so that a
  // shard is woken once for many UPDATEs rather than once for each — a wake-up costs the main
  // loop more than handing over the routes of a small UPDATE.
  void ScheduleFlush() {
    flush_posted_ = true;
    std::weak_ptr<ShardRunner*> weak = alive_;
    auto flush = [weak] {
      auto self = weak.lock();
      if (self && *self != nullptr) (*self)->FlushIdle();
    };
    const auto now = std::chrono::steady_clock::now();
    if (options_.coalesce.count() <= 0 || now - last_flush_ >= options_.coalesce) {
      boost::asio::post(main_, flush);
      return;
    }
    flush_timer_.expires_at(now + options_.coalesce);
    flush_timer_.async_wait([flush](const boost::system::error_code& ec) {
      if (!ec) flush();
    });
  }

  // The flush posted after the first item of a burst: an idle shard gets its open batch now; a
  // busy one asks for it when it runs out (DrainInput). The main loop says "held" and then looks
  // again, the shard counts its work done and then looks at "held" (both sequentially
  // consistent), so at least one of them sees the other and the batch never waits for nothing.
  void FlushIdle() {
    flush_posted_ = false;
    last_flush_ = std::chrono::steady_clock::now();
    for (auto& w : workers_) {
      if (w->open_in == nullptr) continue;
      if (Idle(*w)) {
        HandOver(*w);
        continue;
      }
      w->held.store(true, std::memory_order_seq_cst);
      if (Idle(*w) && w->held.exchange(false, std::memory_order_seq_cst)) HandOver(*w);
    }
  }
  bool Idle(const Worker& w) const {
    return w.sent_items == w.processed_items.load(std::memory_order_seq_cst);
  }
  // A busy shard ran out: its held batch, if it is still open.
  void HandOverHeld(Worker& w) {
    if (w.open_in != nullptr) HandOver(w);
  }

  void HandOver(Worker& w) {
    if (w.open_in == nullptr) return;
    const size_t n = w.open_in->items.size();
    w.open_in = nullptr;
    w.in.Commit();
    w.sent_items += n;
    if (inline_) {
      DrainInput(w);
      return;
    }
    // A shard paused for its outputs is woken when they are delivered (Resume), not for input.
    if (!w.out_paused.load(std::memory_order_seq_cst)) ScheduleDrain(w);
    CheckBacklog(w);
  }

  // Past max_backlog: the shard is full until it has processed up to `resume_at` (half the
  // backlog). The main loop sets "full" and then looks at the count again, the shard counts and
  // then looks at "full" (both sequentially consistent), so one of them sees the other; whichever
  // clears "full" reports the drain (the shard through a post to the main loop).
  void CheckBacklog(Worker& w) {
    if (w.sent_items - w.processed_items.load(std::memory_order_acquire) <= options_.max_backlog) {
      return;
    }
    w.resume_at.store(w.sent_items - options_.max_backlog / 2, std::memory_order_seq_cst);
    if (!w.full.exchange(true, std::memory_order_seq_cst)) Filled();
    if (w.processed_items.load(std::memory_order_seq_cst) >=
            w.resume_at.load(std::memory_order_relaxed) &&
        w.full.exchange(false, std::memory_order_seq_cst)) {
      Drained();
    }
  }
  void Filled() {
    if (full_shards_++ == 0 && cb_.backpressure) cb_.backpressure(true);
  }
  void Drained() {
    if (--full_shards_ == 0 && cb_.backpressure) cb_.backpressure(false);
  }
  // Shard side, after counting processed items: the drain of a full shard goes to the main loop.
  void ReportDrain(Worker& w, uint64_t processed) {
    if (!w.full.load(std::memory_order_seq_cst)) return;
    if (processed < w.resume_at.load(std::memory_order_seq_cst)) return;
    if (!w.full.exchange(false, std::memory_order_seq_cst)) return;
    std::weak_ptr<ShardRunner*> weak = alive_;
    boost::asio::post(main_, [weak] {
      auto self = weak.lock();
      if (self && *self != nullptr) (*self)->Drained();
    });
  }

  // --- Shard side ----------------------------------------------------------------------------
  // The number of handlers `w` ran before a probe posted now runs.
  uint64_t Probe(Worker& w) {
    std::promise<uint64_t> p;
    std::future<uint64_t> f = p.get_future();
    Worker* raw = &w;
    boost::asio::post(*w.io,
                      [raw, &p] { p.set_value(raw->handlers.load(std::memory_order_relaxed)); });
    return f.get();
  }

  void WorkerLoop(Worker& w) {
    while (!w.stopping.load(std::memory_order_relaxed)) {
      if (w.io->run_one() == 0) break;
      w.handlers.fetch_add(1, std::memory_order_release);
    }
  }

  // Runs input batch `b` from where it stopped last, epoch by epoch. False when it stopped again
  // at an epoch's end for its undelivered outputs (StopForOutputs): one input batch can make an
  // output per peer for each of its items, far past max_out_backlog when many peers take each
  // change.
  bool RunBatch(Worker& w, InBatch& b) {
    size_t at = w.in_pos;
    for (size_t i = w.in_mark; i < b.marks.size(); ++i) {
      const Mark& m = b.marks[i];
      if (m.pos > at) {
        EnterEpoch(w);
        cb_.process(*w.shard, std::span<In>(b.items.data() + at, m.pos - at));
        at = m.pos;
      }
      if (m.command != kNoCommand) {
        b.commands[m.command](*w.shard);
        continue;
      }
      cb_.end_epoch(*w.shard, m.epoch);
      w.last_epoch = m.epoch;
      w.mid_epoch = false;
      if (w.unmarked) MarkOut(w);
      if (StopForOutputs(w)) {
        w.in_mark = i + 1;
        w.in_pos = static_cast<uint32_t>(at);
        return false;
      }
    }
    if (b.items.size() > at) {
      EnterEpoch(w);  // the epoch's end comes in a later batch
      cb_.process(*w.shard, std::span<In>(b.items.data() + at, b.items.size() - at));
    }
    return true;
  }
  // Shard side, at an epoch's end inside an input batch: PauseForOutputs, once the outputs made
  // so far, handed over or not, may be past max_out_backlog. Those in the open batch are handed
  // over first, so that everything the shard waits for can be delivered. Reads the main loop's
  // count of deliveries only when its last reading leaves the outputs past the limit.
  bool StopForOutputs(Worker& w) {
    if (inline_) return false;
    const uint64_t made = w.emitted_items.load(std::memory_order_relaxed) +
                          (w.open_out != nullptr ? w.open_out->items.size() : 0);
    if (made - w.delivered_seen <= options_.max_out_backlog) return false;
    w.delivered_seen = w.delivered_items.load(std::memory_order_seq_cst);
    if (made - w.delivered_seen <= options_.max_out_backlog) return false;
    FinishOut(w);
    return PauseForOutputs(w);
  }

  void DrainInput(Worker& w) {
    w.in_scheduled.exchange(false, std::memory_order_acq_rel);
    if (w.in_drain) return;  // inline: a command led back here; the loop below goes on
    w.in_drain = true;
    bool paused = false;
    while (InBatch* b = w.in.Front()) {
      if (PauseForOutputs(w) || !RunBatch(w, *b)) {
        paused = true;
        break;
      }
      const size_t n = b->items.size();
      w.in_mark = 0;
      w.in_pos = 0;
      b->clear();
      w.in.Pop();
      ReportDrain(w, w.processed_items.fetch_add(n, std::memory_order_seq_cst) + n);
      // One batch per handler on a worker: what else is ready on the shard's loop (background
      // slices — a dump walk chasing the input, re-filters, deletions) runs between batches, as
      // it would between reads on the serial pipeline's loop.
      if (!inline_) break;
    }
    w.in_drain = false;
    if (!inline_ && w.in.Front() == nullptr && w.held.exchange(false, std::memory_order_seq_cst)) {
      std::weak_ptr<ShardRunner*> weak = alive_;
      Worker* raw = &w;
      boost::asio::post(main_, [weak, raw] {
        auto self = weak.lock();
        if (self && *self != nullptr) (*self)->HandOverHeld(*raw);
      });
    }
    FinishOut(w);
    // Idle after a burst: the output queue shrinks back to a working size (this thread fills it).
    if (w.in.Front() == nullptr) w.out.Trim(kKeepNodes);
    if (!paused && !inline_ && w.in.Front() != nullptr) ScheduleDrain(w);
  }
  void ScheduleDrain(Worker& w) {
    if (w.in_scheduled.exchange(true, std::memory_order_acq_rel)) return;
    Worker* raw = &w;
    boost::asio::post(*w.io, [this, raw] { DrainInput(*raw); });
  }

  // Outputs of `w` handed over and not yet delivered.
  uint64_t OutBacklog(const Worker& w) const {
    return w.emitted_items.load(std::memory_order_seq_cst) -
           w.delivered_items.load(std::memory_order_seq_cst);
  }
  // Shard side, before an input batch: true when `w` stops taking input for now (see
  // Backpressure). Only between epochs, when every output so far is marked and can be delivered
  // once the other shards catch up. The shard says "paused" and then looks at the backlog and
  // the waiting queries again; the main loop counts deliveries, or a query counts itself, and
  // then looks at "paused" (all sequentially consistent), so one of them sees the other.
  bool PauseForOutputs(Worker& w) {
    if (inline_ || w.mid_epoch || OutBacklog(w) <= options_.max_out_backlog) return false;
    w.out_paused.store(true, std::memory_order_seq_cst);
    if (OutBacklog(w) > options_.max_out_backlog && waiting_ == 0) return true;
    w.out_paused.store(false, std::memory_order_seq_cst);
    return false;
  }
  // Main loop: a paused shard whose outputs are down to half goes on (or any paused shard, when
  // `always`).
  void Resume(Worker& w, bool always) {
    if (!w.out_paused.load(std::memory_order_seq_cst)) return;
    if (!always && OutBacklog(w) > options_.max_out_backlog / 2) return;
    if (w.out_paused.exchange(false, std::memory_order_seq_cst)) ScheduleDrain(w);
  }
  // While the main loop waits for shards (Query, QueryAll), none of them pauses.
  struct Waiting {
    explicit Waiting(ShardRunner& r) : runner(r) {
      runner.waiting_.fetch_add(1, std::memory_order_seq_cst);
      for (auto& w : runner.workers_) runner.Resume(*w, true);
    }
    ~Waiting() { runner.waiting_.fetch_sub(1, std::memory_order_seq_cst); }
    ShardRunner& runner;
  };

  OutBatch& OpenOut(Worker& w) {
    if (w.open_out == nullptr) {
      w.open_out = &w.out.Prepare();
      w.open_out->clear();
      // A fresh node, or one whose buffers went to the main loop's pending list.
      if (w.open_out->items.capacity() == 0) {
        w.open_out->items.reserve(std::min(options_.batch_items, kFreshBatchItems));
      }
    }
    return *w.open_out;
  }
  void MarkOut(Worker& w) {
    OutBatch& b = OpenOut(w);
    b.marks.push_back(OutMark{static_cast<uint32_t>(b.items.size()), w.last_epoch});
    w.unmarked = false;
    w.marked_epoch = w.last_epoch;
  }
  // Before the first item of an epoch: what was emitted until now (background outputs) belongs
  // to the last epoch ended, and the main loop must learn how far this shard got — the outputs
  // of the epoch now begun must not go with that mark, even if they leave before the epoch ends
  // (its end may come in a later batch): one UPDATE's changes reach the merge point together.
  void EnterEpoch(Worker& w) {
    if (w.mid_epoch) return;
    w.mid_epoch = true;
    if (w.unmarked || w.marked_epoch < w.last_epoch) MarkOut(w);
  }
  // Closes the open output batch (its outputs marked with the last epoch processed) and hands
  // it over; with no output, still tells the main loop how far this shard got.
  void FinishOut(Worker& w) {
    // Outputs of an epoch in progress leave unmarked: they go with its mark, later.
    if (!(w.mid_epoch && w.unmarked) && (w.unmarked || w.marked_epoch < w.last_epoch)) {
      MarkOut(w);
    }
    if (w.open_out == nullptr) return;
    const size_t n = w.open_out->items.size();
    w.open_out = nullptr;
    w.out.Commit();
    w.emitted_items.fetch_add(n, std::memory_order_seq_cst);
    if (inline_) {
      PullOutputs(w);
      DeliverReady();
      return;
    }
    if (!w.out_scheduled.exchange(true, std::memory_order_acq_rel)) {
      std::weak_ptr<ShardRunner*> weak = alive_;
      Worker* raw = &w;
      boost::asio::post(main_, [weak, raw] {
        auto self = weak.lock();
        if (!self || *self == nullptr) return;
        raw->out_scheduled.exchange(false, std::memory_order_acq_rel);
        (*self)->PullOutputs(*raw);
        (*self)->DeliverReady();
      });
    }
  }
  void RequestOutFlush(Worker& w) {
    if (w.in_drain || w.out_flush_posted) return;  // the drain hands its outputs over at its end
    w.out_flush_posted = true;
    Worker* raw = &w;
    boost::asio::post(*w.io, [this, raw] {
      raw->out_flush_posted = false;
      FinishOut(*raw);
    });
  }

  // --- Main side: output ---------------------------------------------------------------------
  void PullOutputs(Worker& w) {
    while (OutBatch* b = w.out.Front()) {
      OutBatch mine;
      if (!spare_.empty()) {
        mine = std::move(spare_.back());
        spare_.pop_back();
      }
      std::swap(mine, *b);  // the queue's node keeps our (empty) buffers for reuse
      w.out.Pop();
      w.pending.push_back(std::move(mine));
    }
  }

  // The epoch of the next mark not yet delivered in `w`'s outputs, if one arrived.
  std::optional<uint64_t> NextMark(const Worker& w) const {
    for (size_t b = 0; b < w.pending.size(); ++b) {
      const size_t m = b == 0 ? w.mark_pos : 0;
      if (m < w.pending[b].marks.size()) return w.pending[b].marks[m].epoch;
    }
    return std::nullopt;
  }

  // Delivers `w`'s outputs up to and including its next mark.
  void DeliverThroughMark(Worker& w) {
    while (!w.pending.empty()) {
      OutBatch& b = w.pending.front();
      if (w.mark_pos < b.marks.size()) {
        const OutMark m = b.marks[w.mark_pos++];
        if (m.pos > w.item_pos) {
          w.delivered_items.fetch_add(m.pos - w.item_pos, std::memory_order_seq_cst);
          cb_.deliver(w.index, std::span<Out>(b.items.data() + w.item_pos, m.pos - w.item_pos));
        }
        w.item_pos = m.pos;
        w.passed = std::max(w.passed, m.epoch);
        if (w.item_pos == b.items.size() && w.mark_pos == b.marks.size()) RecycleFront(w);
        return;
      }
      if (b.items.size() > w.item_pos) {
        w.delivered_items.fetch_add(b.items.size() - w.item_pos, std::memory_order_seq_cst);
        cb_.deliver(w.index,
                    std::span<Out>(b.items.data() + w.item_pos, b.items.size() - w.item_pos));
      }
      RecycleFront(w);
    }
  }
  void RecycleFront(Worker& w) {
    OutBatch b = std::move(w.pending.front());
    w.pending.pop_front();
    w.item_pos = 0;
    w.mark_pos = 0;
    // A few spares of a working size are kept; a burst's extra batches, or one grown far past
    // the working size, are freed: memory follows the table, not the largest burst seen.
    if (spare_.size() >= 2 * workers_.size() || b.items.capacity() > 4 * options_.batch_items) {
      return;
    }
    b.clear();
    spare_.push_back(std::move(b));
  }

  // Delivers every epoch all shards have finished, oldest first, and late outputs.
  void DeliverReady() {
    if (delivering_) return;  // a delivery callback led back here; the loop below goes on
    delivering_ = true;
    for (;;) {
      std::optional<uint64_t> lowest;
      for (auto& w : workers_) {
        const std::optional<uint64_t> e = NextMark(*w);
        if (e && (!lowest || *e < *lowest)) lowest = e;
      }
      if (!lowest) break;
      if (*lowest > delivered_epoch_) {
        // Every shard must be done with this epoch: a shard that has not said so may still
        // send outputs of it.
        bool wait = false;
        for (auto& w : workers_) {
          if (w->passed < *lowest && !NextMark(*w)) wait = true;
        }
        if (wait) break;
      }
      for (auto& w : workers_) {
        if (NextMark(*w) == lowest) DeliverThroughMark(*w);
      }
      delivered_epoch_ = std::max(delivered_epoch_, *lowest);
      if (cb_.delivered) cb_.delivered();
    }
    delivering_ = false;
    for (auto& w : workers_) {
      Resume(*w, false);
      // A shard that has caught up: its input queue shrinks back to a working size (the main
      // loop fills it). Memory follows the table, not the largest burst seen.
      if (w->open_in == nullptr && backlog(w->index) == 0) w->in.Trim(kKeepNodes);
    }
  }

  boost::asio::io_context& main_;
  ShardOptions options_;
  Callbacks cb_;
  bool inline_ = false;
  std::vector<std::unique_ptr<Worker>> workers_;
  uint64_t epoch_ = 0;
  uint64_t delivered_epoch_ = 0;
  bool flush_posted_ = false;
  std::chrono::steady_clock::time_point last_flush_;  // of FlushIdle
  boost::asio::steady_timer flush_timer_{main_};
  int full_shards_ = 0;  // shards past max_backlog and not drained yet (main loop)
  bool delivering_ = false;
  std::atomic<int> waiting_{0};  // Query / QueryAll calls waiting for shards (main loop)
  std::vector<OutBatch> spare_;
  std::shared_ptr<ShardRunner*> alive_;
};

}  // namespace sluice::stage
