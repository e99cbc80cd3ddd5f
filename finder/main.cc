// sluice-finder: the Finder process (DESIGN.md § IPC). Wiring only; the logic is in
// finder/registry.h (state and rules) and finder/finder_server.h (gRPC).
//
//   sluice-finder [--listen ENDPOINT]... [--acl FILE] [--allow RULE]... [--deny RULE]...
//                 [--grace-ms N]
//
//   --listen   unix:/PATH or tcp:127.0.0.1:PORT; repeatable. Default
//   unix:$SLUICE_RUNDIR/finder.sock
//   --acl      access list file (finder/access_list.h); re-read on SIGHUP
//   --allow / --deny  one rule "CALLER TARGET INTERFACE", after the file's rules
//   --grace-ms after start, how long watchers wait for re-registrations (default 1000)
//
// SIGINT/SIGTERM stop the Finder; its components see it go and reconnect when it is back.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "finder/access_list.h"
#include "finder/finder_server.h"
#include "finder/registry.h"
#include "net/log.h"

namespace {

using sluice::finder::AccessList;

struct Flags {
  std::vector<std::string> listen;
  std::string acl_file;
  std::vector<std::pair<bool, std::string>> rules;  // allow?, rule
  int grace_ms = 1000;
};

int Usage(const std::string& error) {
  std::cerr << "sluice-finder: " << error << "\n"
            << "usage: sluice-finder [--listen unix:/PATH|tcp:127.0.0.1:PORT]... [--acl FILE]\n"
            << "                     [--allow 'CALLER TARGET INTERFACE']... [--deny ...]...\n"
            << "                     [--grace-ms N]\n";
  return 2;
}

// The access list from the file and the flag rules. Errors name the file or rule.
absl::StatusOr<AccessList> BuildAccessList(const Flags& flags) {
  AccessList list;
  if (!flags.acl_file.empty()) {
    auto loaded = AccessList::Load(flags.acl_file);
    if (!loaded.ok()) return loaded.status();
    list = *std::move(loaded);
  }
  for (const auto& [allow, rule] : flags.rules) {
    absl::Status status = list.AddRule((allow ? "allow " : "deny ") + rule);
    if (!status.ok()) return status;
  }
  return list;
}

}  // namespace

int main(int argc, char** argv) {
  sluice::net::SetLogTag("finder");
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (arg == "--listen" && (v = value())) {
      flags.listen.push_back(v);
    } else if (arg == "--acl" && (v = value())) {
      flags.acl_file = v;
    } else if ((arg == "--allow" || arg == "--deny") && (v = value())) {
      flags.rules.emplace_back(arg == "--allow", v);
    } else if (arg == "--grace-ms" && (v = value())) {
      flags.grace_ms = std::atoi(v);
    } else if (arg == "--help" || arg == "-h") {
      return Usage("the Finder: registry, resolution and lifetime events of Sluice components");
    } else {
      return Usage("unknown or incomplete argument " + arg);
    }
  }
  auto access_list = BuildAccessList(flags);
  if (!access_list.ok()) {
    std::cerr << "sluice-finder: " << access_list.status().message() << "\n";
    return 1;
  }

  boost::asio::io_context io;
  sluice::finder::FinderServer finder(
      io, {.listen = flags.listen,
           .access_list = *access_list,
           .recovery_grace = std::chrono::milliseconds(flags.grace_ms)});
  if (absl::Status status = finder.Start(); !status.ok()) {
    std::cerr << "sluice-finder: " << status.message() << "\n";
    return 1;
  }
  if (!access_list->empty()) {
    SLUICE_LOG(kInfo) << "access list: " << access_list->size() << " rules";
  }

  // SIGINT/SIGTERM -> stop; SIGHUP -> re-read the access list.
  boost::asio::signal_set stop_signals(io, SIGINT, SIGTERM);
  stop_signals.async_wait([&](const boost::system::error_code& error, int signal) {
    if (error) return;
    SLUICE_LOG(kInfo) << "signal " << signal << ": stopping";
    finder.Stop();
    io.stop();
  });
  boost::asio::signal_set hup(io, SIGHUP);
  std::function<void(const boost::system::error_code&, int)> on_hup =
      [&](const boost::system::error_code& error, int) {
        if (error) return;
        auto reloaded = BuildAccessList(flags);
        if (reloaded.ok()) {
          finder.registry().SetAccessList(*std::move(reloaded));
          SLUICE_LOG(kInfo) << "SIGHUP: access list re-read";
        } else {
          SLUICE_LOG(kWarning) << "SIGHUP: keeping the old access list: " << reloaded.status();
        }
        hup.async_wait(on_hup);
      };
  hup.async_wait(on_hup);
  io.run();
  return 0;
}
