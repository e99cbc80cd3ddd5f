#pragma once
// Xrl: the text form of one call (XORP NSDI'05 §6.1), parsed and printed.
//
//   finder://TARGET/INTERFACE/VERSION/METHOD?name:type=value&...
//   finder://rib/rib/1.0/add_route4?protocol:txt=static&network:ipv4net=10.0.0.0/8
//
// TARGET is a component class ("rib") or instance name ("rib-2"): letters, digits, '_', '-'
// and '.'. INTERFACE/VERSION/METHOD maps to a protobuf service method by the rule in
// ipc/method_name.h; the arguments (ipc/xrl_args.h) map to the request message's fields by
// ipc/proto_codec.h. The '?' may be left out when there are no arguments.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ipc/method_name.h"
#include "ipc/xrl_args.h"

namespace sluice::ipc {

struct Xrl {
  std::string target;     // "rib"
  std::string interface;  // "rib"
  std::string version;    // "1.0"
  std::string method;     // "add_route4"
  XrlArgs args;

  // Errors (InvalidArgument) name the column and, for arguments, the argument:
  //   "column 9: bad target name "" (want letters, digits, '_', '-', '.')"
  //   "column 40: argument 2 "nexthop": bad ipv4 value "1.2.3": not an IPv4 address"
  // Leading and trailing white space is ignored.
  static absl::StatusOr<Xrl> Parse(std::string_view text);

  std::string ToString() const;
  // The method's names (service "sluice.rib.v1.Rib", rpc "AddRoute4", ...).
  absl::StatusOr<MethodName> method_name() const;

  friend bool operator==(const Xrl&, const Xrl&) = default;
};

}  // namespace sluice::ipc
