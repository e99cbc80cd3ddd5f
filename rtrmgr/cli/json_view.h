#pragma once
// The `--json` documents of the `sluice show` commands, built from the replies by explicit
// converters (docs/json.md gives every shape): addresses and prefixes as text, every number a
// JSON number (64-bit counters too), snake_case keys, one object per command.
//
// nlohmann::ordered_json keeps the keys in the order written, as the tables show them.

#include <string>

#include "ipc/proto/bgp.pb.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/fea_ifmgr.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/proto/rtrmgr.pb.h"
#include "ipc/proto/types.pb.h"
#include "nlohmann/json.hpp"

namespace sluice::rtrmgr::cli {

using Json = nlohmann::ordered_json;

// "127.0.0.2", "2001:db8::1", "10.0.0.0/8"; null when unset or unreadable.
Json AddressJson(const types::v1::IPAddress& a);
Json AddressJson(const types::v1::IPv4Address& a);
Json PrefixJson(const types::v1::IPPrefix& p);
Json StringList(const google::protobuf::RepeatedPtrField<std::string>& list);

// json_bgp.cc

// A peer's configuration, session, counters and graceful restart.
Json PeerJson(const bgp::v1::PeerInfo& p);
// "established", "idle", ... or "disabled" / "administratively down (CLI)".
std::string PeerStateText(const bgp::v1::PeerInfo& p);
Json BgpRouteJson(const bgp::v1::Route& r);
Json DampedJson(const bgp::v1::DampedRoute& d);

// json_view.cc
Json RibRouteJson(const rib::v1::RibRoute& r);
Json FibRouteJson(const fea_fib::v1::FibRoute& r);
Json InterfaceJson(const fea_ifmgr::v1::Interface& i);
Json StatusJson(const rtrmgr::v1::GetStatusReply& s);

// One line: the document, compact.
std::string Print(const Json& j);

}  // namespace sluice::rtrmgr::cli
