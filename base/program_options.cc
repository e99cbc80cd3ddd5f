#include "base/program_options.h"

#include <iostream>
#include <memory>
#include <utility>
#include <vector>

#include "base/log.h"
#include "base/version.h"

namespace sluice::base {
namespace {

constexpr size_t kHelpWidth = 80;  // columns of --help

// `text` with each line longer than `width` broken at spaces.
std::string Wrap(std::string_view text, size_t width) {
  std::string out;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    while (line.size() > width) {
      size_t cut = line.rfind(' ', width);
      if (cut == std::string_view::npos || cut == 0) cut = line.find(' ', width);
      if (cut == std::string_view::npos) break;
      out.append(line.substr(0, cut)).push_back('\n');
      line.remove_prefix(cut + 1);
    }
    out.append(line);
    if (end != std::string_view::npos) out.push_back('\n');
  }
  return out;
}

// CLI11's help with option descriptions wrapped to the help's width.
class WrappingFormatter : public CLI::Formatter {
 public:
  std::string make_option_desc(const CLI::Option* option) const override {
    return Wrap(CLI::Formatter::make_option_desc(option), kHelpWidth - get_column_width());
  }
};

}  // namespace

ProgramOptions::ProgramOptions(std::string program, std::string description)
    : program_(std::move(program)),
      formatter_(std::make_shared<WrappingFormatter>()),
      app_(Wrap(description, kHelpWidth) + "\n", program_) {
  formatter_->column_width(34);
  formatter_->label("Usage", "usage");
  app_.formatter(formatter_);
  app_.set_help_flag("-h,--help", "print the options and exit");
  app_.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app_.option_defaults()->always_capture_default();
  app_.add_flag_callback(
      "--version",
      [this] {
        PrintVersion(program_);
        throw CLI::Success();
      },
      "print the version and exit");
}

std::optional<int> ProgramOptions::Parse(int argc, char** argv) {
  try {
    app_.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app_.help();
    return 0;
  } catch (const CLI::CallForAllHelp&) {
    std::cout << app_.help("", CLI::AppFormatMode::All);
    return 0;
  } catch (const CLI::Success&) {
    return 0;
  } catch (const CLI::ParseError& e) {
    return Fail(e.what());
  }
  return ApplyLogOptions();
}

void ProgramOptions::AddLogOptions() {
  log_options_ = true;
  app_.add_option("--log-level", log_level_, "log threshold: debug, info, warning or error");
  app_.add_option("--log-destination", log_destination_,
                  "where log lines go: stderr (default), syslog or journal");
  app_.add_option("--log-syslog-socket", log_syslog_socket_,
                  "the syslog Unix datagram socket (default /dev/log)");
}

std::optional<int> ProgramOptions::ApplyLogOptions() const {
  if (!log_options_) return std::nullopt;
  LogLevel level;
  if (!log_level_.empty()) {
    if (!ParseLogLevel(log_level_, &level)) {
      return Fail("--log-level: want debug, info, warning or error, not " + log_level_);
    }
    SetLogLevel(level);
  }
  LogDestination destination = LogDestination::kStderr;
  if (!log_destination_.empty() && !ParseLogDestination(log_destination_, &destination)) {
    return Fail("--log-destination: want stderr, syslog or journal, not " + log_destination_);
  }
  if (absl::Status s = SetLogDestination(destination, log_syslog_socket_); !s.ok()) {
    return Fail("--log-syslog-socket: " + std::string(s.message()));
  }
  return std::nullopt;
}

int ProgramOptions::Fail(std::string_view message) const {
  std::cerr << program_ << ": " << message << "\n"
            << formatter_->make_usage(&app_, program_) << "`" << program_
            << " --help` lists the options.\n";
  return kExitUsage;
}

CLI::Option* AddParsedOption(CLI::App& app, const std::string& name,
                             std::function<absl::Status(const std::string&)> parse,
                             const std::string& description, bool repeatable) {
  CLI::Option* option = app.add_option_function<std::vector<std::string>>(
      name,
      [name, parse = std::move(parse)](const std::vector<std::string>& values) {
        for (const std::string& value : values) {
          if (absl::Status status = parse(value); !status.ok()) {
            throw CLI::ValidationError(name, std::string(status.message()));
          }
        }
      },
      description);
  option->expected(1)->allow_extra_args(false);
  if (repeatable) option->take_all();
  return option;
}

}  // namespace sluice::base
