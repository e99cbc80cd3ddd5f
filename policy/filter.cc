#include "policy/filter.h"

#include "base/status_macros.h"
#include "policy/parser.h"

namespace sluice::policy {

absl::StatusOr<std::shared_ptr<const Filter>> Filter::Compile(const PolicyConfig& config,
                                                              const FilterSpec& spec,
                                                              const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::unique_ptr<Program> program, CompileProgram(config, spec, options));
  return std::shared_ptr<const Filter>(new Filter(std::move(program), spec));
}

absl::StatusOr<std::shared_ptr<const Filter>> Filter::FromText(std::string_view text,
                                                               const SourceLocation& start,
                                                               const FilterSpec& spec,
                                                               const CompileOptions& options) {
  ASSIGN_OR_RETURN(PolicyConfig config, ParsePolicy(text, start));
  // Every statement must compile (sets exist, ...); only the chain must suit this bank.
  CompileOptions all;
  all.fuse_tests = options.fuse_tests;
  RETURN_IF_ERROR(CheckPolicyConfig(config, all));
  return Compile(config, spec, options);
}

std::shared_ptr<const Filter> Filter::Default(Verdict verdict) {
  FilterSpec spec;
  spec.default_verdict = verdict;
  auto program = CompileProgram(PolicyConfig(), spec);
  return std::shared_ptr<const Filter>(new Filter(std::move(*program), spec));
}

absl::Status FilterSlot::Configure(const PolicyConfig& config, const FilterSpec& spec,
                                   const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::shared_ptr<const Filter> filter, Filter::Compile(config, spec, options));
  Set(std::move(filter));
  return absl::OkStatus();
}

}  // namespace sluice::policy
