#include "rtrmgr/cli/command.h"

namespace sluice::rtrmgr::cli {

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"call", "call 'XRL'...  |  call -f FILE",
       "call methods: finder://TARGET/INTERFACE/VERSION/METHOD?name:type=value&...; prints "
       "each reply in the same form (-f: one XRL per line, '#' comments)",
       RunCall},
      {"targets", "targets", "list registered components, their endpoints and methods", RunTargets},
  };
  return commands;
}

}  // namespace sluice::rtrmgr::cli
