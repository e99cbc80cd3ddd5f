#include "rpki/rtr_session.h"

#include <algorithm>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace sluice::rpki {
namespace {

void Merge(RtrSession::Output& into, RtrSession::Output from) {
  into.send.insert(into.send.end(), from.send.begin(), from.send.end());
  into.close = into.close || from.close;
  into.reconnect_now = into.reconnect_now || from.reconnect_now;
  if (!from.error.empty()) into.error = std::move(from.error);
}

std::string VrpText(const Vrp& v) {
  return absl::StrCat(v.prefix.ToString(), "-", v.max_length, " AS", v.asn);
}

}  // namespace

const char* RtrSession::StateName(State state) {
  switch (state) {
    case State::kResetting:
      return "resetting";
    case State::kSyncing:
      return "syncing";
    case State::kEstablished:
      return "established";
    case State::kIdle:
      break;
  }
  return "idle";
}

RtrSession::RtrSession(VrpStore* store, VrpStore::CacheId cache, rtr::Intervals defaults,
                       uint8_t version)
    : store_(store),
      cache_(cache),
      defaults_(defaults),
      intervals_(defaults),
      version_(std::min<uint8_t>(version, 1)) {}

RtrSession::Output RtrSession::Connected(Clock::time_point now) {
  Disconnected();
  return Query(now);
}

void RtrSession::Disconnected() {
  if (state_ == State::kSyncing && !in_response_) {
    // The cache closed rather than answer our Serial Query (stayrtr does so for a session id
    // it does not know, e.g. after it restarted): ask for the whole set next time. The answer
    // replaces our data without withdrawing what is still there.
    session_id_.reset();
    serial_.reset();
  }
  state_ = State::kIdle;
  buffer_.clear();
  in_response_ = false;
  pending_.clear();
}

RtrSession::Output RtrSession::Query(Clock::time_point now) {
  Output out;
  query_sent_ = now;
  if (session_id_.has_value() && serial_.has_value()) {
    state_ = State::kSyncing;
    out.send = rtr::EncodeSerialQuery(version_, *session_id_, *serial_);
  } else {
    state_ = State::kResetting;
    out.send = rtr::EncodeResetQuery(version_);
  }
  return out;
}

RtrSession::Output RtrSession::Fail(rtr::ErrorCode code, std::span<const uint8_t> raw,
                                    const std::string& what) {
  Output out;
  out.send = rtr::EncodeErrorReport(version_, code, raw, what);
  out.close = true;
  out.error = absl::StrCat(rtr::ErrorCodeName(code), ": ", what);
  in_response_ = false;
  pending_.clear();
  return out;
}

RtrSession::Output RtrSession::Received(std::span<const uint8_t> octets, Clock::time_point now) {
  if (state_ == State::kIdle) return {};
  buffer_.insert(buffer_.end(), octets.begin(), octets.end());
  Output out;
  size_t offset = 0;
  while (!out.close) {
    const std::span<const uint8_t> rest = std::span(buffer_).subspan(offset);
    rtr::Decoded d = rtr::Decode(rest, version_);
    if (d.kind == rtr::Decoded::kNeedMore) break;
    if (d.kind == rtr::Decoded::kError) {
      Merge(out,
            Fail(d.error, rest.first(std::min<size_t>(rest.size(), rtr::kMaxPduLength)), d.what));
      break;
    }
    Merge(out, Handle(d, rest.first(d.consumed), now));
    offset += d.consumed;
  }
  if (out.close) {
    buffer_.clear();
  } else {
    buffer_.erase(buffer_.begin(), buffer_.begin() + offset);
  }
  return out;
}

RtrSession::Output RtrSession::Handle(const rtr::Decoded& d, std::span<const uint8_t> raw,
                                      Clock::time_point now) {
  if (std::holds_alternative<rtr::SerialNotify>(d.pdu)) {
    // §5.2: the cache has new data; ask now unless a query is out already.
    return state_ == State::kEstablished ? Query(now) : Output{};
  }
  if (const auto* p = std::get_if<rtr::CacheResponse>(&d.pdu)) return OnCacheResponse(*p, raw);
  if (const auto* p = std::get_if<rtr::PrefixPdu>(&d.pdu)) return OnPrefix(*p, raw);
  if (const auto* p = std::get_if<rtr::EndOfData>(&d.pdu)) return OnEndOfData(*p, raw, now);
  if (std::holds_alternative<rtr::CacheReset>(d.pdu)) {
    // §5.9: the cache cannot answer our Serial Query incrementally.
    if (state_ != State::kSyncing || in_response_) {
      return Fail(rtr::ErrorCode::kCorruptData, raw, "Cache Reset outside a Serial Query");
    }
    session_id_.reset();
    serial_.reset();
    return Query(now);
  }
  if (std::holds_alternative<rtr::RouterKey>(d.pdu)) {
    if (!in_response_)
      return Fail(rtr::ErrorCode::kCorruptData, raw, "Router Key outside a response");
    return {};  // BGPsec keys: not used
  }
  return OnErrorReport(std::get<rtr::ErrorReport>(d.pdu), d.version);
}

RtrSession::Output RtrSession::OnCacheResponse(const rtr::CacheResponse& pdu,
                                               std::span<const uint8_t> raw) {
  if (in_response_ || (state_ != State::kResetting && state_ != State::kSyncing)) {
    return Fail(rtr::ErrorCode::kCorruptData, raw, "Cache Response without a query");
  }
  if (state_ == State::kSyncing && pdu.session_id != session_id_) {
    // §5.1: a new session id means the cache's data is new: start again with a Reset Query.
    const std::string what =
        absl::StrFormat("session id changed from %u to %u", *session_id_, pdu.session_id);
    session_id_.reset();
    serial_.reset();
    return Fail(rtr::ErrorCode::kCorruptData, raw, what);
  }
  session_id_ = pdu.session_id;
  in_response_ = true;
  pending_.clear();
  return {};
}

RtrSession::Output RtrSession::OnPrefix(const rtr::PrefixPdu& pdu, std::span<const uint8_t> raw) {
  if (!in_response_) {
    return Fail(rtr::ErrorCode::kCorruptData, raw, "Prefix PDU outside a response");
  }
  // In a Reset Query's answer the cache's earlier set does not count: it is being replaced.
  const bool held = state_ == State::kSyncing && store_->Holds(cache_, pdu.vrp);
  auto it = pending_.find(pdu.vrp);
  if (pdu.announce) {
    const bool there = it != pending_.end() ? it->second : held;
    if (there) {
      return Fail(rtr::ErrorCode::kDuplicateAnnouncement, raw,
                  "announcement of " + VrpText(pdu.vrp) + " already held");
    }
    if (it != pending_.end()) {
      pending_.erase(it);  // withdrawn earlier in this response: back to held
    } else {
      pending_.emplace(pdu.vrp, true);
    }
    return {};
  }
  const bool there = it != pending_.end() ? it->second : held;
  if (!there) {
    return Fail(rtr::ErrorCode::kWithdrawalOfUnknownRecord, raw,
                "withdrawal of " + VrpText(pdu.vrp) + " never announced");
  }
  if (it != pending_.end()) {
    pending_.erase(it);  // announced earlier in this response
  } else {
    pending_.emplace(pdu.vrp, false);
  }
  return {};
}

RtrSession::Output RtrSession::OnEndOfData(const rtr::EndOfData& pdu, std::span<const uint8_t> raw,
                                           Clock::time_point now) {
  if (!in_response_)
    return Fail(rtr::ErrorCode::kCorruptData, raw, "End of Data outside a response");
  if (pdu.session_id != session_id_) {
    return Fail(rtr::ErrorCode::kCorruptData, raw,
                absl::StrFormat("End of Data for session %u in session %u", pdu.session_id,
                                session_id_.value_or(0)));
  }
  if (state_ == State::kResetting) {
    ApplyReset();
  } else {
    ApplyChanges();
  }
  serial_ = pdu.serial;
  intervals_ =
      pdu.intervals.has_value() && rtr::IntervalsValid(*pdu.intervals) ? *pdu.intervals : defaults_;
  last_sync_ = now;
  in_response_ = false;
  state_ = State::kEstablished;
  return {};
}

void RtrSession::ApplyReset() {
  for (const Vrp& old : store_->CacheVrps(cache_)) {
    if (!pending_.contains(old)) store_->Withdraw(cache_, old);
  }
  for (const auto& [vrp, announced] : pending_) store_->Announce(cache_, vrp);
  pending_.clear();
}

void RtrSession::ApplyChanges() {
  for (const auto& [vrp, announced] : pending_) {
    if (announced) {
      store_->Announce(cache_, vrp);
    } else {
      store_->Withdraw(cache_, vrp);
    }
  }
  pending_.clear();
}

RtrSession::Output RtrSession::OnErrorReport(const rtr::ErrorReport& pdu, uint8_t version) {
  Output out;
  out.close = true;
  in_response_ = false;
  pending_.clear();
  if (pdu.code == rtr::ErrorCode::kUnsupportedProtocolVersion && version < version_) {
    // §7: the cache speaks an older version; offer that one on a new connection.
    version_ = version;
    session_id_.reset();
    serial_.reset();
    out.reconnect_now = true;
    out.error = absl::StrFormat("the cache speaks version %u", version);
    return out;
  }
  out.error = absl::StrCat("the cache reports ", rtr::ErrorCodeName(pdu.code),
                           pdu.text.empty() ? "" : ": ", pdu.text);
  return out;
}

std::optional<RtrSession::Clock::time_point> RtrSession::Deadline() const {
  std::optional<Clock::time_point> due;
  const auto earliest = [&due](Clock::time_point t) { due = due ? std::min(*due, t) : t; };
  if (state_ == State::kEstablished && last_sync_) {
    earliest(*last_sync_ + std::chrono::seconds(intervals_.refresh));
  }
  if (state_ == State::kResetting || state_ == State::kSyncing) {
    earliest(query_sent_ + std::chrono::seconds(intervals_.retry));
  }
  if (last_sync_) earliest(*last_sync_ + std::chrono::seconds(intervals_.expire));
  return due;
}

RtrSession::Output RtrSession::Tick(Clock::time_point now) {
  Output out;
  if (last_sync_ && now >= *last_sync_ + std::chrono::seconds(intervals_.expire)) Expire();
  if (state_ == State::kEstablished &&
      (!last_sync_ || now >= *last_sync_ + std::chrono::seconds(intervals_.refresh))) {
    return Query(now);
  }
  if ((state_ == State::kResetting || state_ == State::kSyncing) &&
      now >= query_sent_ + std::chrono::seconds(intervals_.retry)) {
    out.close = true;
    out.error = absl::StrFormat("no answer to our query within %u s", intervals_.retry);
  }
  return out;
}

void RtrSession::Expire() {
  store_->DropCache(cache_);
  last_sync_.reset();
  session_id_.reset();
  serial_.reset();
  intervals_ = defaults_;
  ++expiries_;
}

}  // namespace sluice::rpki
