#pragma once
// Matchers: the compiled tests a program's MATCH and TEST instructions apply to a value. Each is
// immutable once built and safe to use from many threads. A value of the wrong kind (including
// none) never matches.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "policy/as_path_regex.h"
#include "policy/ast.h"
#include "policy/community.h"
#include "policy/prefix_set.h"
#include "policy/value.h"

namespace sluice::policy {

class Matcher {
 public:
  virtual ~Matcher() = default;
  virtual bool Match(const Value& v) const = 0;
  // For "community delete": does one member match? (false unless a community matcher)
  virtual bool MatchCommunity(uint32_t) const { return false; }
  virtual bool MatchExtCommunity(uint64_t) const { return false; }
  virtual bool MatchLargeCommunity(const LargeCommunity&) const { return false; }
  // For the disassembly: "prefix-list bogons", "med < 100", ...
  virtual std::string Describe() const = 0;
};

// network, nexthop, neighbor: a prefix value, or an address as a host route.
class PrefixMatcher : public Matcher {
 public:
  PrefixMatcher(std::shared_ptr<const PrefixSet> set, std::string description)
      : set_(std::move(set)), description_(std::move(description)) {}
  bool Match(const Value& v) const override;
  std::string Describe() const override { return description_; }

 private:
  std::shared_ptr<const PrefixSet> set_;
  std::string description_;
};

// A u32 variable against a comparison (tag, med, local-pref, origin).
class CompareMatcher : public Matcher {
 public:
  CompareMatcher(Comparison c, std::string description)
      : comparison_(c), description_(std::move(description)) {}
  bool Match(const Value& v) const override {
    return v.kind() == ValueKind::kU32 && comparison_.Test(v.u32());
  }
  std::string Describe() const override { return description_; }

 private:
  Comparison comparison_;
  std::string description_;
};

class AsPathLengthMatcher : public Matcher {
 public:
  AsPathLengthMatcher(Comparison c, std::string description)
      : comparison_(c), description_(std::move(description)) {}
  bool Match(const Value& v) const override;
  std::string Describe() const override { return description_; }

 private:
  Comparison comparison_;
  std::string description_;
};

// Any of the expressions matches the whole path. When the path carries an intern id
// (AsPathView::intern_id), the answer is remembered per thread in a small direct-mapped cache
// keyed by (this matcher, id), so a path shared by many routes is matched once.
class AsPathRegexMatcher : public Matcher {
 public:
  AsPathRegexMatcher(std::vector<std::shared_ptr<const AsPathRegex>> regexes,
                     std::string description);
  bool Match(const Value& v) const override;
  std::string Describe() const override { return description_; }

 private:
  bool Evaluate(const AsPathView& path) const;
  std::vector<std::shared_ptr<const AsPathRegex>> regexes_;
  std::string description_;
  uint32_t serial_;  // unique per matcher: part of the cache key
};

// Text equal to one of the names (protocol).
class TextMatcher : public Matcher {
 public:
  TextMatcher(std::vector<std::string> names, std::string description)
      : names_(std::move(names)), description_(std::move(description)) {}
  bool Match(const Value& v) const override;
  std::string Describe() const override { return description_; }

 private:
  std::vector<std::string> names_;
  std::string description_;
};

// Communities of one kind against patterns: "any" matches when some member of the route
// matches some pattern; "all" when every pattern is matched by some member of the route.
class CommunityMatcher : public Matcher {
 public:
  CommunityMatcher(std::vector<CommunityPattern> c, std::vector<ExtCommunityPattern> e,
                   std::vector<LargeCommunityPattern> l, bool all, std::string description);
  bool Match(const Value& v) const override;
  bool MatchCommunity(uint32_t c) const override;
  bool MatchExtCommunity(uint64_t c) const override;
  bool MatchLargeCommunity(const LargeCommunity& c) const override;
  std::string Describe() const override { return description_; }

 private:
  std::vector<CommunityPattern> communities_;
  std::vector<ExtCommunityPattern> ext_;
  std::vector<LargeCommunityPattern> large_;
  bool all_;
  std::string description_;
};

}  // namespace sluice::policy
