#pragma once
// Method<Request, Reply>: a method name tied at compile time to its request and reply types.
//
// One constant per method, in its interface's ipc/methods/NAME.h, for the server and callers:
//
//   inline const ipc::Method<rib::v1::AddRoute4Request, rib::v1::AddRoute4Reply>
//       kAddRoute4{"rib/1.0/add_route4"};
//
//   router.Handle(kAddRoute4, [&](const rib::v1::AddRoute4Request& r)
//                                 -> absl::StatusOr<rib::v1::AddRoute4Reply> { ... });
//   router.Call("rib", kAddRoute4, request, [](absl::StatusOr<rib::v1::AddRoute4Reply> r) {});
//
// A request or reply of the wrong type does not compile. The name may be in any form
// MethodName::Parse accepts; that it names a method of the linked protos with exactly these
// request and reply types is checked once, when the router first sees the method (errors are
// returned by Handle, and given to a call's callback).

#include <string_view>
#include <type_traits>

#include "absl/status/status.h"
#include "google/protobuf/message.h"
#include "ipc/method_name.h"

namespace sluice::ipc {

template <typename Request, typename Reply>
class Method {
  static_assert(std::is_base_of_v<google::protobuf::Message, Request>,
                "Method<Request, Reply>: Request must be a generated protobuf message");
  static_assert(std::is_base_of_v<google::protobuf::Message, Reply>,
                "Method<Request, Reply>: Reply must be a generated protobuf message");

 public:
  using RequestType = Request;
  using ReplyType = Reply;

  explicit Method(std::string_view name) {
    auto parsed = MethodName::Parse(name);
    if (parsed.ok()) {
      name_ = *std::move(parsed);
    } else {
      status_ = parsed.status();
    }
  }

  const MethodName& name() const { return name_; }
  // InvalidArgument when the name given to the constructor did not parse.
  const absl::Status& status() const { return status_; }

 private:
  MethodName name_;
  absl::Status status_;
};

}  // namespace sluice::ipc
