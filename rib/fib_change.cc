#include "rib/fib_change.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace sluice::rib {
namespace {

void AppendAddress(const net::IPAddress& a, std::vector<uint32_t>& words) {
  if (a.is_v4()) {
    words.push_back(a.v4().value());
    return;
  }
  const net::IPv6Address v6 = a.v6();
  words.insert(words.end(), {static_cast<uint32_t>(v6.hi() >> 32), static_cast<uint32_t>(v6.hi()),
                             static_cast<uint32_t>(v6.lo() >> 32), static_cast<uint32_t>(v6.lo())});
}

net::IPAddress ReadAddress(bool ipv6, const uint32_t* w) {
  if (!ipv6) return net::IPAddress(net::IPv4Address(w[0]));
  return net::IPAddress(
      net::IPv6Address((uint64_t{w[0]} << 32) | w[1], (uint64_t{w[2]} << 32) | w[3]));
}

}  // namespace

const char* FibOpName(FibChange::Op op) {
  switch (op) {
    case FibChange::Op::kAdd:
      return "add";
    case FibChange::Op::kReplace:
      return "replace";
    case FibChange::Op::kDelete:
      return "delete";
  }
  return "?";
}

std::string FibRoute::ToString() const {
  std::string out = network.ToString();
  if (nexthop) absl::StrAppend(&out, " via ", nexthop->ToString());
  if (!ifname.empty()) absl::StrAppend(&out, " dev ", ifname.name());
  absl::StrAppend(&out, " metric ", metric, " ", protocol.name(), "/", admin_distance);
  return out;
}

void FibChangeList::push_back(const FibChange& change) {
  const FibRoute& r = change.route;
  uint8_t flags = static_cast<uint8_t>(change.op);
  if (r.network.is_v6()) flags |= kIPv6;
  if (r.nexthop) flags |= r.nexthop->is_v6() ? kNexthopIPv6 : kNexthopIPv4;
  records_.push_back(Record{flags, static_cast<uint8_t>(r.network.length()), r.admin_distance,
                            r.metric, r.ifname, r.protocol});
  AppendAddress(r.network.address(), words_);
  if (r.nexthop) AppendAddress(*r.nexthop, words_);
}

void FibChangeList::reserve(size_t changes, net::Family family) {
  records_.reserve(changes);
  words_.reserve(changes * 2 * Words(family == net::Family::kIPv6));
}

void FibChangeList::ShrinkIfSparse() {
  if (records_.capacity() > 2 * records_.size()) records_.shrink_to_fit();
  if (words_.capacity() > 2 * words_.size()) words_.shrink_to_fit();
}

void FibChangeList::clear() {
  records_.clear();
  words_.clear();
}

void FibChangeList::swap(FibChangeList& other) noexcept {
  records_.swap(other.records_);
  words_.swap(other.words_);
}

FibChange FibChangeList::const_iterator::operator*() const {
  const Record& rec = list_->records_[record_];
  const uint32_t* w = list_->words_.data() + word_;
  const bool ipv6 = rec.op_flags & kIPv6;
  FibChange c{static_cast<FibChange::Op>(rec.op_flags & kOpMask), FibRoute{}};
  c.route.network = net::Prefix(ReadAddress(ipv6, w), rec.length);
  if (rec.op_flags & (kNexthopIPv4 | kNexthopIPv6)) {
    c.route.nexthop = ReadAddress(rec.op_flags & kNexthopIPv6, w + Words(ipv6));
  }
  c.route.ifname = rec.ifname;
  c.route.metric = rec.metric;
  c.route.protocol = rec.protocol;
  c.route.admin_distance = rec.admin_distance;
  return c;
}

FibChangeList::const_iterator& FibChangeList::const_iterator::operator++() {
  word_ += list_->WordsOf(list_->records_[record_]);
  ++record_;
  return *this;
}

size_t FibChangeList::WordsOf(const Record& r) {
  size_t n = Words(r.op_flags & kIPv6);
  if (r.op_flags & kNexthopIPv4) n += Words(false);
  if (r.op_flags & kNexthopIPv6) n += Words(true);
  return n;
}

}  // namespace sluice::rib
