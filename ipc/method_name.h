#pragma once
// The mechanical mapping between XRL names and protobuf/gRPC names.
//
// An XRL names a method as INTERFACE/VERSION/METHOD ("fea_ifmgr/1.0/add_route4"); protobuf
// names it PACKAGE.SERVICE.RPC ("sluice.fea_ifmgr.v1.FeaIfmgr.AddRoute4") and gRPC as the path
// "/PACKAGE.SERVICE/RPC". The rule, in both directions:
//
//   interface  fea_ifmgr   <->  service  FeaIfmgr     (snake_case <-> UpperCamelCase)
//   version    M.0         <->  package  sluice.fea_ifmgr.vM
//   version    M.N (N > 0) <->  package  sluice.fea_ifmgr.vM_N
//   method     add_route4  <->  rpc      AddRoute4    (snake_case <-> UpperCamelCase)
//
// snake_case names are lower-case words of letters and digits joined by single '_', each word
// starting with a letter ("add_route4", "bgp4_mp"); UpperCamelCase capitalises the first letter
// of each word and drops the '_' ("AddRoute4", "Bgp4Mp"); going back, every capital starts a
// word. The two are inverse, so every UpperCamelCase name (letters and digits, first a
// capital) has exactly one XRL name — but write "GetIpv4Address", not "GetIPv4Address", whose
// XRL name is "get_i_pv4_address". The XRL router refuses to register a method that has no
// XRL name. Examples: common/1.0/get_target_name = /sluice.common.v1.Common/GetTargetName,
// finder/1.0 = sluice.finder.v1.Finder, rib/1.0/add_route4 = /sluice.rib.v1.Rib/AddRoute4.
//
// The request and reply message names are free; by convention <Rpc>Request and <Rpc>Reply.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace sluice::ipc {

// "add_route4" -> "AddRoute4". Errors: InvalidArgument unless `snake` is snake_case as above.
absl::StatusOr<std::string> SnakeToCamel(std::string_view snake);
// "AddRoute4" -> "add_route4". Errors: InvalidArgument unless `camel` is UpperCamelCase as above.
absl::StatusOr<std::string> CamelToSnake(std::string_view camel);

// ("fea_ifmgr", "1.0") -> "sluice.fea_ifmgr.v1.FeaIfmgr".
absl::StatusOr<std::string> InterfaceToService(std::string_view interface,
                                               std::string_view version);

struct XrlInterface {
  std::string interface;  // "fea_ifmgr"
  std::string version;    // "1.0"
};
// "sluice.fea_ifmgr.v1.FeaIfmgr" -> {"fea_ifmgr", "1.0"}. Errors: InvalidArgument when the name
// does not follow the rule (then the service is callable by gRPC but not by XRL).
absl::StatusOr<XrlInterface> ServiceToInterface(std::string_view service);

// One method, named every way. Cheap to copy; build it once for hot paths.
class MethodName {
 public:
  MethodName() = default;

  // Accepts any of the three forms:
  //   XRL         "rib/1.0/add_route4"
  //   protobuf    "sluice.rib.v1.Rib.AddRoute4"
  //   gRPC path   "/sluice.rib.v1.Rib/AddRoute4"
  // The protobuf and path forms are accepted for any service name; xrl() is then empty when
  // the name does not follow the mapping rule. Errors: InvalidArgument naming the text.
  static absl::StatusOr<MethodName> Parse(std::string_view text);
  // From a service full name and an rpc name.
  static absl::StatusOr<MethodName> FromService(std::string_view service, std::string_view rpc);

  const std::string& service() const { return service_; }          // "sluice.rib.v1.Rib"
  const std::string& rpc() const { return rpc_; }                  // "AddRoute4"
  const std::string& path() const { return path_; }                // "/sluice.rib.v1.Rib/AddRoute4"
  const std::string& xrl() const { return xrl_; }                  // "rib/1.0/add_route4" or ""
  std::string full_name() const { return service_ + "." + rpc_; }  // protobuf method name

  friend bool operator==(const MethodName& a, const MethodName& b) { return a.path_ == b.path_; }

 private:
  std::string service_;
  std::string rpc_;
  std::string path_;
  std::string xrl_;
};

}  // namespace sluice::ipc
