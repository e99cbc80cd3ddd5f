#include "bgp/mrt/mrt_table_dump.h"

#include <pthread.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "absl/strings/str_cat.h"

namespace sluice::bgp::mrt {

absl::StatusOr<std::unique_ptr<MrtTableDump>> MrtTableDump::Begin(const std::string& path,
                                                                  const PeerIndexTable& table,
                                                                  absl::Time time) {
  if (path.empty()) return absl::InvalidArgumentError("the table dump's path is empty");
  // A dump replaces a file, never a socket, a directory, a device or a symbolic link, and
  // writes through none.
  for (const std::string& p : {path, path + ".partial"}) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::symlink_status(p, ec);
    if (std::filesystem::exists(st) && !std::filesystem::is_regular_file(st)) {
      return absl::InvalidArgumentError(
          absl::StrCat(p, " exists and is not a regular file: not replaced"));
    }
  }
  if (table.peers.size() > 0xffff) {
    return absl::InvalidArgumentError("more than 65,535 peers for one PEER_INDEX_TABLE");
  }
  std::unique_ptr<MrtTableDump> d(new MrtTableDump());
  d->path_ = path;
  d->result_.path = path;
  d->time_ = uint32_t(absl::ToUnixSeconds(time));
  // A ".gz" name keeps its compression: the partial file is "x.gz.partial".
  absl::StatusOr<std::unique_ptr<MrtWriter>> w =
      MrtWriter::Open(path + ".partial", /*append=*/false, MrtWriter::kLargeBufferBytes);
  if (!w.ok()) return w.status();
  d->writer_ = std::move(*w);
  for (size_t i = 0; i < table.peers.size(); ++i) {
    d->peer_index_.try_emplace(table.peers[i].address, uint16_t(i));
  }
  // This router, for originated routes, is a first peer with the unspecified address.
  d->has_local_ =
      !table.peers.empty() && table.peers[0].address == net::IPAddress(net::IPv4Address());
  if (absl::Status s = d->writer_->WritePeerIndexTable(d->time_, table); !s.ok()) {
    d->writer_.reset();
    std::remove((path + ".partial").c_str());
    return s;
  }
  d->thread_ = std::thread([p = d.get()] {
    pthread_setname_np(pthread_self(), "bgp-mrt-dump");  // top -H, perf, the benchmarks
    p->Run();
  });
  return d;
}

MrtTableDump::~MrtTableDump() {
  {
    std::lock_guard lock(mu_);
    abandon_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void MrtTableDump::AddPage(std::vector<BgpRoute> routes) {
  {
    std::lock_guard lock(mu_);
    pages_.push_back(std::move(routes));
  }
  wake_.notify_one();
}

size_t MrtTableDump::pending_pages() const {
  std::lock_guard lock(mu_);
  return pages_.size();
}

void MrtTableDump::Finish(std::function<void(absl::Status, TableDumpResult)> done) {
  {
    std::lock_guard lock(mu_);
    finishing_ = true;
    done_ = std::move(done);
  }
  wake_.notify_one();
}

void MrtTableDump::Run() {
  absl::Status status;
  for (;;) {
    std::vector<BgpRoute> page;
    bool finish = false;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [&] { return abandon_ || finishing_ || !pages_.empty(); });
      if (abandon_) break;
      if (!pages_.empty()) {
        page = std::move(pages_.front());
        pages_.pop_front();
      } else {
        finish = true;
      }
    }
    if (finish) {
      if (status.ok()) status = Complete();
      std::function<void(absl::Status, TableDumpResult)> done;
      {
        std::lock_guard lock(mu_);
        done = std::move(done_);
      }
      if (!status.ok()) {
        writer_.reset();
        std::remove((path_ + ".partial").c_str());
      }
      if (done) done(status, result_);
      return;
    }
    if (status.ok()) status = WritePage(page);
  }
  writer_.reset();
  std::remove((path_ + ".partial").c_str());
}

absl::Status MrtTableDump::WritePage(const std::vector<BgpRoute>& page) {
  size_t i = 0;
  while (i < page.size()) {
    const net::Prefix& prefix = page[i].net;
    entries_.clear();
    for (; i < page.size() && page[i].net == prefix; ++i) {
      const BgpRoute& r = page[i];
      const PeerSource* src = r.source;
      uint16_t index = 0;
      if (src == nullptr || !r.attrs) {
        ++result_.skipped;
        continue;
      }
      if (src->local) {
        if (!has_local_) {
          ++result_.skipped;
          continue;
        }
      } else {
        auto it = peer_index_.find(src->address);
        if (it == peer_index_.end()) {
          ++result_.skipped;
          continue;
        }
        index = it->second;
      }
      RibEntry e;
      e.peer_index = index;
      e.originated_time = time_;
      e.attributes = r.attrs;
      entries_.push_back(std::move(e));
    }
    if (entries_.empty()) continue;
    if (entries_.size() > 0xffff) entries_.resize(0xffff);
    absl::Status s =
        writer_->WriteRib(time_, uint32_t(result_.prefixes), prefix, Safi::kUnicast, entries_);
    if (!s.ok()) return s;
    ++result_.prefixes;
    result_.routes += entries_.size();
  }
  return absl::OkStatus();
}

absl::Status MrtTableDump::Complete() {
  absl::Status s = writer_->Close();
  writer_.reset();
  if (!s.ok()) return s;
  std::error_code ec;
  std::filesystem::rename(path_ + ".partial", path_, ec);
  if (ec) {
    return absl::InternalError(
        absl::StrCat("cannot rename ", path_, ".partial to ", path_, ": ", ec.message()));
  }
  result_.octets = std::filesystem::file_size(path_, ec);
  return absl::OkStatus();
}

}  // namespace sluice::bgp::mrt
