#pragma once
// Conversion between XRL arguments (ipc/xrl_args.h) and protobuf messages by reflection, so that
// every method of every interface is callable from the shell with no hand-written parser.
//
// Each argument names a field of the message; its XRL type must be the field's:
//
//   int32 sint32 sfixed32 -> i32      uint32 fixed32 -> u32      bool -> bool
//   int64 sint64 sfixed64 -> i64      uint64 fixed64 -> u64      double float -> fp64
//   string -> txt                     bytes -> binary            enum -> txt (value name)
//   sluice.types.v1.IPv4Address -> ipv4     IPv6Address -> ipv6     MacAddress -> mac
//   sluice.types.v1.IPv4Prefix -> ipv4net   IPv6Prefix -> ipv6net
//   sluice.types.v1.IPAddress -> ipvx      IPPrefix -> ipvxnet  (either family; when setting such
//                                a field, ipv4/ipv6 and ipv4net/ipv6net are accepted too)
//   any other message -> msg (its own arguments in parentheses; nests XrlArgs::kMaxNesting (64)
//                        levels deep at most)
//   repeated T -> list<T>; a map<K, V> is a list<msg> of (key:K=...&value:V=...)
//
// An enum value is written by name ("READY"), or by number for a value the schema does not
// know. Omitted fields keep their default. A printed message lists its fields in declaration
// order: repeated fields and plain proto3 scalars always, fields with presence (messages, oneof
// members, `optional` scalars) only when set (an IPAddress or IPPrefix set to a message with no
// family set prints as absent; a prefix prints with its host bits, which types.proto says are
// zero, cleared; a MAC address prints its low 48 bits). Printing then parsing gives the same
// message.
//
// Descriptors may come from the generated pool or from a dynamic pool (the `sluice` CLI builds
// messages of services it was not compiled with); the types above are recognised by full name.

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "ipc/xrl_args.h"

namespace google::protobuf {
class FieldDescriptor;
class Message;
}  // namespace google::protobuf

namespace sluice::ipc {

// The XRL type that stands for `field`.
XrlType FieldXrlType(const google::protobuf::FieldDescriptor& field);

// Clears `message`, then sets its fields from `args`. Errors (InvalidArgument) name the
// argument by position and name, its column when it was parsed, and what is wrong (or, for
// arguments nested deeper than XrlArgs::kMaxNesting, "nesting too deep"):
//   argument 2 "nexthop" (column 45): field nexthop of sluice.rib.v1.AddRoute4Request is ipv4,
//   not u32
//   argument 3 "routes[1].metric": no field metric in sluice.rib.v1.Route (fields: network, ...)
absl::Status ArgsToMessage(const XrlArgs& args, google::protobuf::Message* message);

// The arguments that describe `message`. Errors (InvalidArgument): a prefix length out of range,
// an element of a repeated IPAddress or IPPrefix field with no family set, messages nested
// deeper than XrlArgs::kMaxNesting ("nesting too deep": the text could not be parsed back).
absl::StatusOr<XrlArgs> MessageToArgs(const google::protobuf::Message& message);

}  // namespace sluice::ipc
