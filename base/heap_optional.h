#pragma once
// HeapOptional<T>: an optional value kept on the heap, for a rarely present field of a type
// stored many times. It holds one pointer (8 octets) where std::optional<T> holds sizeof(T) plus
// a flag, and allocates only when a value is set.
//
// It behaves as a value, like std::optional<T>: copies copy the value, == compares values (two
// empty ones are equal), and the subset of std::optional's interface it offers means the same.
// Unlike std::optional, a moved-from HeapOptional is empty. Reading the value of an empty one
// (operator*, operator->) is undefined, as for std::optional.

#include <memory>
#include <optional>
#include <utility>

namespace sluice::base {

template <typename T>
class HeapOptional {
 public:
  HeapOptional() = default;
  // Implicit, as std::optional's: `attrs.mp_next_hop = std::nullopt` or `= MpNextHop{...}`.
  HeapOptional(std::nullopt_t) {}
  HeapOptional(const T& value) : value_(std::make_unique<T>(value)) {}
  HeapOptional(T&& value) : value_(std::make_unique<T>(std::move(value))) {}
  HeapOptional(const HeapOptional& o) : value_(o ? std::make_unique<T>(*o) : nullptr) {}
  HeapOptional(HeapOptional&&) noexcept = default;
  ~HeapOptional() = default;

  HeapOptional& operator=(const HeapOptional& o) {
    if (!o) {
      reset();
    } else if (this != &o) {
      *this = *o;
    }
    return *this;
  }
  HeapOptional& operator=(HeapOptional&&) noexcept = default;
  HeapOptional& operator=(std::nullopt_t) {
    reset();
    return *this;
  }
  // Reuses the allocation when a value is already held.
  HeapOptional& operator=(const T& value) {
    if (value_) {
      *value_ = value;
    } else {
      value_ = std::make_unique<T>(value);
    }
    return *this;
  }
  HeapOptional& operator=(T&& value) {
    if (value_) {
      *value_ = std::move(value);
    } else {
      value_ = std::make_unique<T>(std::move(value));
    }
    return *this;
  }

  void reset() { value_.reset(); }
  bool has_value() const { return value_ != nullptr; }
  explicit operator bool() const { return has_value(); }
  T& operator*() { return *value_; }
  const T& operator*() const { return *value_; }
  T* operator->() { return value_.get(); }
  const T* operator->() const { return value_.get(); }

  friend bool operator==(const HeapOptional& a, const HeapOptional& b) {
    if (!a || !b) return !a && !b;
    return *a == *b;
  }

 private:
  std::unique_ptr<T> value_;
};

}  // namespace sluice::base
