// libFuzzer target: any text given to the XRL parser is either rejected with an error (deep
// nesting included) or parses to an XRL that prints and parses back to the same thing;
// converting its arguments to a message of every field type never crashes, and a converted
// message prints and parses back.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ipc/proto_codec.h"
#include "ipc/xrl.h"
#include "tests/ipc/proto/codec_test.pb.h"

namespace {

// Text that is not an XRL is taken as arguments alone (the part after '?'), so that mutations
// of the argument grammar need not keep a valid XRL in front: they parse to arguments that print
// and parse back to the same text, or to an error.
void FuzzArgs(std::string_view text) {
  auto args = sluice::ipc::XrlArgs::Parse(text);
  if (!args.ok()) return;
  const std::string printed = args->ToString();
  auto again = sluice::ipc::XrlArgs::Parse(printed);
  if (!again.ok() || again->ToString() != printed) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (text.substr(0, 9) != "finder://") {
    FuzzArgs(text);
    return 0;
  }
  auto xrl = sluice::ipc::Xrl::Parse(text);
  if (!xrl.ok()) return 0;
  // Compared as text: NaN never equals itself.
  std::string printed_xrl = xrl->ToString();
  auto again = sluice::ipc::Xrl::Parse(printed_xrl);
  if (!again.ok() || again->ToString() != printed_xrl) std::abort();
  sluice::codec_test::v1::AllTypes message;
  if (!sluice::ipc::ArgsToMessage(xrl->args, &message).ok()) return 0;
  auto printed = sluice::ipc::MessageToArgs(message);
  if (!printed.ok()) return 0;  // e.g. a prefix length out of range set through a nested msg
  auto reparsed = sluice::ipc::XrlArgs::Parse(printed->ToString());
  if (!reparsed.ok()) std::abort();
  sluice::codec_test::v1::AllTypes back;
  if (!sluice::ipc::ArgsToMessage(*reparsed, &back).ok()) std::abort();
  auto printed_back = sluice::ipc::MessageToArgs(back);
  if (!printed_back.ok() || printed_back->ToString() != printed->ToString()) std::abort();
  return 0;
}
