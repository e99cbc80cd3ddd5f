#include "stage/plumber.h"

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"

namespace sluice::stage {

Plumber::Plumber(boost::asio::io_context& io) : io_(io) {}
Plumber::~Plumber() = default;

void Plumber::Retire(const StageBase* stage) {
  if (std::find(retired_.begin(), retired_.end(), stage) != retired_.end()) return;
  retired_.push_back(stage);
  if (destroy_posted_) return;
  destroy_posted_ = true;
  // The Plumber outlives its io_context's handlers by construction (a process's main owns
  // both and destroys the Plumber after the loop stops).
  boost::asio::post(io_, [this] { DestroyRetired(); });
}

void Plumber::DestroyRetired() {
  destroy_posted_ = false;
  std::vector<const StageBase*> doomed;
  doomed.swap(retired_);
  std::erase_if(stages_, [&](const std::unique_ptr<StageBase>& s) {
    return std::find(doomed.begin(), doomed.end(), s.get()) != doomed.end();
  });
}

std::vector<const StageBase*> Plumber::stages() const {
  std::vector<const StageBase*> out;
  out.reserve(stages_.size());
  for (const auto& s : stages_) {
    if (std::find(retired_.begin(), retired_.end(), s.get()) == retired_.end()) {
      out.push_back(s.get());
    }
  }
  return out;
}

namespace {

void DescribeFrom(const StageBase* stage, int depth, absl::flat_hash_set<const StageBase*>& seen,
                  std::string& out) {
  out.append(2 * depth, ' ');
  if (!seen.insert(stage).second) {
    absl::StrAppend(&out, "-> ", stage->name(), " (above)\n");
    return;
  }
  absl::StrAppend(&out, stage->name(), " [", std::string(stage->kind()), "]");
  if (stage->dynamic()) out += " dynamic";
  if (std::string status = stage->Status(); !status.empty()) absl::StrAppend(&out, " ", status);
  out += '\n';
  for (const StageBase* next : stage->downstream_stages()) {
    DescribeFrom(next, depth + 1, seen, out);
  }
}

}  // namespace

std::string Plumber::Describe() const {
  std::string out;
  absl::flat_hash_set<const StageBase*> seen;
  for (const StageBase* s : stages()) {
    if (s->upstream_stages().empty()) DescribeFrom(s, 0, seen, out);
  }
  // Stages on a cycle or not reachable from a root (a bug, but show it).
  for (const StageBase* s : stages()) {
    if (!seen.contains(s)) DescribeFrom(s, 0, seen, out);
  }
  return out;
}

std::vector<Plumber::QueueDepth> Plumber::QueueDepths() const {
  std::vector<QueueDepth> out;
  for (const StageBase* s : stages()) {
    if (std::optional<uint64_t> n = s->queue_depth()) {
      out.push_back(QueueDepth{s->name(), std::string(s->kind()), *n});
    }
  }
  return out;
}

}  // namespace sluice::stage
