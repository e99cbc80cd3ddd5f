// sluice-test-component: a component serving test_echo/1.0 for the system tests.
//
//   sluice-test-component [--class C] [--instance NAME] [--finder ADDRESS] [--listen EP]...
//                         [--watch CLASS]... [--sole]
//
// Prints "ready INSTANCE" when registered, "refused MESSAGE" when the Finder refuses it, and
// for each --watch "birth INSTANCE" / "death INSTANCE" lines, flushed. Exits 0 on SIGTERM,
// SIGINT or common/1.0/shutdown.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <csignal>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/program_options.h"
#include "ipc/xrl_router.h"
#include "tests/ipc/test_echo_service.h"

int main(int argc, char** argv) {
  sluice::base::SetLogTag("test-component");
  std::string class_name = "test_echo", instance;
  std::vector<std::string> watches;
  sluice::ipc::RouterOptions options;
  sluice::base::ProgramOptions flags("sluice-test-component",
                                     "sluice-test-component: a component serving test_echo/1.0");
  CLI::App& app = flags.app();
  app.add_option("--class", class_name, "the component class");
  app.add_option("--instance", instance, "the instance name (default: the Finder's choice)");
  app.add_option("--finder", options.finder_address, "the Finder");
  sluice::base::AddRepeatedOption(app, "--listen", options.listen, "where to serve; repeatable");
  sluice::base::AddRepeatedOption(app, "--watch", watches,
                                  "print the births and deaths of this class; repeatable");
  app.add_flag("--sole", options.sole_instance, "register as the sole instance of the class");
  if (std::optional<int> exit = flags.Parse(argc, argv)) return *exit;
  boost::asio::io_context io;
  sluice::ipc::XrlRouter router(io, class_name, instance, options);
  sluice::test_echo::TestEchoService service(io, router);
  if (auto status = service.Register(); !status.ok()) {
    std::cerr << "sluice-test-component: " << status.message() << "\n";
    return 1;
  }
  router.OnReady([&](absl::Status status) {
    if (status.ok()) {
      std::cout << "ready " << router.instance_name() << std::endl;
    } else {
      std::cout << "refused " << status.message() << std::endl;
    }
  });
  for (const std::string& watch : watches) {
    router.WatchClass(watch, [](const sluice::ipc::TargetEvent& event) {
      std::cout << (event.kind == sluice::ipc::TargetEvent::kBirth ? "birth " : "death ")
                << event.instance_name << std::endl;
    });
  }
  if (auto status = router.Start(); !status.ok()) {
    std::cerr << "sluice-test-component: " << status.message() << "\n";
    return 1;
  }
  boost::asio::signal_set signals(io, SIGINT, SIGTERM);
  signals.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
  io.run();
  return 0;
}
