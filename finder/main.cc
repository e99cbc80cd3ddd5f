// sluice-finder: the Finder process (DESIGN.md § IPC). Wiring only; the logic is in
// finder/registry.h (state and rules) and finder/finder_server.h (gRPC).
//
//   sluice-finder [--listen ENDPOINT]... [--listen-fd N]... [--master-key-fd N]
//                 [--socket-group NAME] [--operator-group NAME] [--admin-group NAME]
//                 [--acl FILE] [--allow RULE]... [--deny RULE]... [--grace-ms N]
//
//   --listen          unix:/PATH (mode 0660, group --socket-group) or tcp:HOST:PORT
//                     (mutual TLS, or plain with SLUICE_INSECURE=1; ipc/transport.h);
//                     repeatable. Default unix:$SLUICE_RUNDIR/finder.sock
//   --listen-fd       a listening Unix socket inherited from sluice-rtrmgr; repeatable
//   --master-key-fd   an inherited descriptor holding the key class credentials derive from
//                     (finder/authority.h); without it, components of the Finder's own user
//                     (or root) may register any class
//   --socket-group    the group of the Unix sockets it binds: who may connect (default
//                     sluice-ops)
//   --operator-group  people in this group may call READ methods (default sluice-ops)
//   --admin-group     people in this group may call every method (default sluice-admin)
//   --acl             access list file (finder/access_list.h); re-read on SIGHUP
//   --allow / --deny  one rule "CALLER TARGET INTERFACE", after the file's rules
//   --grace-ms        after start, how long watchers wait for re-registrations (default 1000)
//
// SIGINT/SIGTERM stop the Finder; its components see it go and reconnect when it is back.
// --help lists the options; a bad option exits 2 with a message naming it.

#include <unistd.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/program_options.h"
#include "finder/access_list.h"
#include "finder/finder_server.h"
#include "finder/registry.h"
#include "ipc/peer_identity.h"
#include "ipc/process_security.h"
#include "ipc/run_loop.h"

namespace {

using sluice::finder::AccessList;

struct Flags {
  std::vector<std::string> listen;
  std::vector<int> listen_fds;
  int master_key_fd = -1;
  std::string socket_group = "sluice-ops";
  std::string operator_group = "sluice-ops";
  std::string admin_group = "sluice-admin";
  std::string acl_file;
  std::vector<std::pair<bool, std::string>> rules;  // allow?, rule
  int grace_ms = 1000;
};

// Returns the status to exit with when the program should not go on (--help, --version, a bad
// command line; base/program_options.h).
std::optional<int> ParseFlags(int argc, char** argv, Flags* flags) {
  sluice::base::ProgramOptions options(
      "sluice-finder",
      "sluice-finder: the Finder, registry, resolution and lifetime events of Sluice components");
  CLI::App& app = options.app();
  sluice::base::AddRepeatedOption(app, "--listen", flags->listen,
                                  "unix:/PATH or tcp:HOST:PORT; repeatable (default "
                                  "unix:$SLUICE_RUNDIR/finder.sock)");
  sluice::base::AddRepeatedOption(app, "--listen-fd", flags->listen_fds,
                                  "a listening Unix socket inherited from sluice-rtrmgr; "
                                  "repeatable")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--master-key-fd", flags->master_key_fd,
                 "an inherited descriptor holding the key class credentials derive from")
      ->check(CLI::Range(0, 1 << 20));
  app.add_option("--socket-group", flags->socket_group,
                 "the group of the Unix sockets it binds: who may connect");
  app.add_option("--operator-group", flags->operator_group,
                 "people in this group may call READ methods");
  app.add_option("--admin-group", flags->admin_group, "people in this group may call every method");
  app.add_option("--acl", flags->acl_file, "access list file; re-read on SIGHUP");
  for (const bool allow : {true, false}) {
    sluice::base::AddParsedOption(
        app, allow ? "--allow" : "--deny",
        [flags, allow](const std::string& rule) {
          flags->rules.emplace_back(allow, rule);
          return absl::OkStatus();
        },
        "one rule 'CALLER TARGET INTERFACE', after the file's; repeatable", true);
  }
  app.add_option("--grace-ms", flags->grace_ms,
                 "after start, how long watchers wait for re-registrations")
      ->check(CLI::Range(0, 3600 * 1000));
  options.AddLogOptions();
  return options.Parse(argc, argv);
}

// Reads the master key from an inherited descriptor and closes it.
absl::StatusOr<std::string> ReadMasterKey(int fd) {
  std::string key;
  char buffer[128];
  ssize_t n = 0;
  while ((n = read(fd, buffer, sizeof(buffer))) > 0) key.append(buffer, static_cast<size_t>(n));
  close(fd);
  if (n < 0 || key.size() < 16) {
    return absl::InvalidArgumentError(
        "--master-key-fd: cannot read a key of at least 16 octets from the descriptor");
  }
  return key;
}

// Who may register as what, and people's groups (finder/authority.h).
absl::StatusOr<sluice::finder::AuthorityOptions> BuildAuthority(const Flags& flags) {
  sluice::finder::AuthorityOptions authority;
  if (flags.master_key_fd >= 0) {
    auto key = ReadMasterKey(flags.master_key_fd);
    if (!key.ok()) return key.status();
    authority.master_key = *std::move(key);
  }
  authority.operator_group_name = flags.operator_group;
  authority.admin_group_name = flags.admin_group;
  authority.operator_group = sluice::ipc::GroupId(flags.operator_group);
  authority.admin_group = sluice::ipc::GroupId(flags.admin_group);
  for (const auto& [name, gid] : {std::pair{&flags.operator_group, authority.operator_group},
                                  std::pair{&flags.admin_group, authority.admin_group}}) {
    if (!gid) {
      SLUICE_LOG(kWarning) << "group " << *name << " does not exist: nobody has its role";
    }
  }
  return authority;
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
  sluice::base::SetLogTag("finder");
  if (absl::Status status = sluice::ipc::HardenProcess(); !status.ok()) {
    std::cerr << "sluice-finder: " << status.message() << "\n";
    return 1;
  }
  Flags flags;
  if (std::optional<int> exit = ParseFlags(argc, argv, &flags)) return *exit;
  auto access_list = BuildAccessList(flags);
  if (!access_list.ok()) {
    std::cerr << "sluice-finder: " << access_list.status().message() << "\n";
    return 1;
  }
  auto authority = BuildAuthority(flags);
  if (!authority.ok()) {
    std::cerr << "sluice-finder: " << authority.status().message() << "\n";
    return 1;
  }

  boost::asio::io_context io;
  sluice::ipc::SocketAccess access{.mode = 0660};
  if (auto group = sluice::ipc::GroupId(flags.socket_group)) access.group = *group;
  sluice::finder::FinderServer finder(
      io, {.listen = flags.listen,
           .listen_fds = flags.listen_fds,
           .socket_access = access,
           .authority = *authority,
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
  sluice::ipc::RunLoop(io);
  return 0;
}
