#pragma once
// SpscQueue: an unbounded, lock-free queue between exactly one producer thread and one consumer
// thread, whose nodes are recycled (D. Vyukov's single-producer/single-consumer queue with a
// node cache). Used by the shard stage (shard_runner.h) to hand batches of route changes between
// the event loop and the shard workers: once the queue has grown to its working size, a hand-over
// allocates nothing and takes no lock — the producer fills a node in place, publishes it with one
// release store, and later reuses it when the consumer has moved past it. A value keeps its
// members' capacity (a vector's buffer) from one use to the next.
//
//   Producer:                              Consumer:
//     T& slot = q.Prepare();                 while (T* v = q.Front()) {
//     slot.items.push_back(...);               use(*v);
//     q.Commit();                              v->items.clear();   // release what it holds
//                                              q.Pop();
//                                            }
//
// Prepare() returns a recycled value as the consumer left it (clear it there, or before reuse).
// Only the producer calls Prepare/Commit/Trim/nodes; only the consumer calls Front/Pop. Either may
// call empty() (a hint for the producer).

#include <atomic>
#include <cstddef>
#include <new>
#include <utility>

namespace sluice::stage {

template <class T>
class SpscQueue {
 public:
  SpscQueue() {
    Node* stub = new Node;
    head_ = first_ = tail_copy_ = stub;
    tail_.store(stub, std::memory_order_relaxed);
  }
  ~SpscQueue() {
    delete prepared_;
    Node* n = first_;
    while (n != nullptr) {
      Node* next = n->next.load(std::memory_order_relaxed);
      delete n;
      n = next;
    }
  }
  SpscQueue(const SpscQueue&) = delete;
  SpscQueue& operator=(const SpscQueue&) = delete;

  // --- Producer ------------------------------------------------------------------------------
  // The value to fill in; published by Commit(). Calling Prepare twice without a Commit returns
  // the same value.
  T& Prepare() {
    if (prepared_ == nullptr) prepared_ = Allocate();
    return prepared_->value;
  }
  void Commit() {
    Node* n = prepared_ != nullptr ? prepared_ : Allocate();
    prepared_ = nullptr;
    n->next.store(nullptr, std::memory_order_relaxed);
    head_->next.store(n, std::memory_order_release);
    head_ = n;
  }
  // Frees nodes the consumer has moved past while the queue holds more than `keep` nodes (with
  // the values' buffers): after a burst, the queue shrinks back to a working size. Returns the
  // number freed.
  size_t Trim(size_t keep) {
    tail_copy_ = tail_.load(std::memory_order_acquire);
    size_t freed = 0;
    while (nodes_ > keep && first_ != tail_copy_) {
      delete TakeFirst();
      --nodes_;
      ++freed;
    }
    return freed;
  }
  // Nodes allocated and not freed (the stub, the published, the recycled).
  size_t nodes() const { return nodes_; }

  // --- Consumer ------------------------------------------------------------------------------
  // The oldest published value, or null when there is none.
  T* Front() {
    Node* next = tail_.load(std::memory_order_relaxed)->next.load(std::memory_order_acquire);
    return next != nullptr ? &next->value : nullptr;
  }
  // Done with Front(): the node goes back to the producer (with whatever the value still holds).
  void Pop() {
    Node* next = tail_.load(std::memory_order_relaxed)->next.load(std::memory_order_acquire);
    if (next != nullptr) tail_.store(next, std::memory_order_release);
  }

  bool empty() const {
    return tail_.load(std::memory_order_acquire)->next.load(std::memory_order_acquire) == nullptr;
  }

 private:
  struct Node {
    std::atomic<Node*> next{nullptr};
    T value{};
  };

  // A node the consumer has moved past, or a new one.
  Node* Allocate() {
    if (first_ != tail_copy_) return TakeFirst();
    tail_copy_ = tail_.load(std::memory_order_acquire);
    if (first_ != tail_copy_) return TakeFirst();
    ++nodes_;
    return new Node;
  }
  Node* TakeFirst() {
    Node* n = first_;
    first_ = n->next.load(std::memory_order_relaxed);
    return n;
  }

  // Consumer side: the last node consumed (the stub; its value was already used).
  alignas(64) std::atomic<Node*> tail_;
  // Producer side.
  alignas(64) Node* head_;    // the last node published
  Node* first_;               // the oldest node; nodes from here up to tail_copy_ are free
  Node* tail_copy_;           // the producer's last look at tail_
  Node* prepared_ = nullptr;  // taken by Prepare, not yet published
  size_t nodes_ = 1;          // the stub and every node allocated since, less those trimmed
};

}  // namespace sluice::stage
