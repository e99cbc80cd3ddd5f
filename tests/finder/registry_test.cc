#include "finder/registry.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ipc/caller_key.h"

namespace sluice::finder {
namespace {

using ::testing::HasSubstr;

class Recorder : public SessionSink {
 public:
  void Send(v1::SessionEvent event) override { events.push_back(std::move(event)); }
  std::vector<v1::SessionEvent> events;

  std::vector<std::string> Lifetimes() const {
    std::vector<std::string> out;
    for (const auto& e : events) {
      if (e.has_lifetime()) {
        out.push_back((e.lifetime().kind() == v1::LifetimeEvent::BIRTH ? "birth " : "death ") +
                      e.lifetime().instance_name());
      } else if (e.has_synced()) {
        out.push_back("synced");
      } else if (e.has_invalidate()) {
        out.push_back("invalidate " + e.invalidate().instance_name());
      }
    }
    return out;
  }
};

v1::Registration Component(const std::string& class_name, const std::string& instance,
                           bool sole = false) {
  v1::Registration r;
  r.set_class_name(class_name);
  r.set_instance_name(instance);
  r.set_sole_instance(sole);
  r.add_endpoints("unix:/tmp/" + instance + ".sock");
  r.set_incarnation("inc-" + instance);
  auto* service = r.add_services();
  service->set_name("sluice.rib.v1.Rib");
  service->add_methods("AddRoute4");
  service->add_methods("DeleteRoute4");
  return r;
}

// Registers and marks ready (keys installed), as a router does.
absl::StatusOr<v1::Registered> Join(Registry& registry, SessionId id,
                                    const v1::Registration& registration) {
  auto registered = registry.Register(id, registration);
  if (registered.ok()) registry.Ready(id);
  return registered;
}

v1::ResolveRequest Resolve(const std::string& target, uint64_t id = 1) {
  v1::ResolveRequest r;
  r.set_id(id);
  r.set_target(target);
  r.set_service("sluice.rib.v1.Rib");
  return r;
}

class RegistryTest : public ::testing::Test {
 protected:
  Registry registry_{AccessList(), [this] { return Key(); }, /*in_grace=*/false};
  int keys_ = 0;
  std::string Key() { return std::string(15, 'k') + static_cast<char>('a' + keys_++); }
};

TEST_F(RegistryTest, RegisterGivesAKeyPerMethodAndResolveReturnsThem) {
  Recorder rib_sink, bgp_sink;
  SessionId rib = registry_.Open(&rib_sink);
  auto registered = Join(registry_, rib, Component("rib", "rib"));
  ASSERT_TRUE(registered.ok()) << registered.status();
  ASSERT_EQ(registered->keys_size(), 2);
  EXPECT_EQ(registered->keys(0).method(), "/sluice.rib.v1.Rib/AddRoute4");
  EXPECT_EQ(registered->keys(0).key().size(), 16u);
  EXPECT_NE(registered->keys(0).key(), registered->keys(1).key());

  SessionId bgp = registry_.Open(&bgp_sink);
  ASSERT_TRUE(Join(registry_, bgp, Component("bgp", "bgp")).ok());
  v1::ResolveReply reply = registry_.Resolve(bgp, Resolve("rib", 7));
  EXPECT_EQ(reply.code(), 0) << reply.message();
  EXPECT_EQ(reply.id(), 7u);
  EXPECT_EQ(reply.instance_name(), "rib");
  EXPECT_EQ(reply.endpoints(0), "unix:/tmp/rib.sock");
  ASSERT_EQ(reply.keys_size(), 2);
  // The resolver gets a key derived for itself, never the method's secret.
  EXPECT_NE(reply.keys(1).key(), registered->keys(1).key());
  EXPECT_EQ(reply.keys(1).key(), ipc::CallerKey(registered->keys(1).key(), "bgp/bgp"));
}

TEST_F(RegistryTest, ResolveErrors) {
  Recorder sink;
  SessionId s = registry_.Open(&sink);
  EXPECT_EQ(registry_.Resolve(s, Resolve("rib")).code(),
            static_cast<int>(absl::StatusCode::kFailedPrecondition));
  ASSERT_TRUE(Join(registry_, s, Component("bgp", "bgp")).ok());
  auto missing = registry_.Resolve(s, Resolve("rib"));
  EXPECT_EQ(missing.code(), static_cast<int>(absl::StatusCode::kNotFound));
  EXPECT_EQ(missing.message(), "no such target: rib");
  v1::ResolveRequest other = Resolve("bgp");
  other.set_service("sluice.fea.v1.Fea");
  auto unimplemented = registry_.Resolve(s, other);
  EXPECT_EQ(unimplemented.code(), static_cast<int>(absl::StatusCode::kNotFound));
  EXPECT_EQ(unimplemented.message(), "target bgp does not implement fea/1.0");
}

TEST_F(RegistryTest, NamesAreUniqueAndSoleInstancesAlone) {
  Recorder sink;
  SessionId a = registry_.Open(&sink), b = registry_.Open(&sink), c = registry_.Open(&sink),
            d = registry_.Open(&sink);
  ASSERT_TRUE(Join(registry_, a, Component("rib", "")).ok());
  auto second = Join(registry_, b, Component("rib", ""));
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->instance_name(), "rib-2");
  EXPECT_EQ(Join(registry_, c, Component("rib", "rib")).status().code(),
            absl::StatusCode::kAlreadyExists);
  // An instance name belongs to the class that registered it first.
  EXPECT_EQ(Join(registry_, c, Component("x", "rib")).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(Join(registry_, c, Component("rib", "rib-9", /*sole=*/true)).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(Join(registry_, d, Component("bad name", "x")).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Join(registry_, a, Component("rib", "again")).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // A class resolves to its oldest instance.
  ASSERT_TRUE(Join(registry_, c, Component("y", "y")).ok());
  EXPECT_EQ(registry_.Resolve(c, Resolve("rib")).instance_name(), "rib");
  registry_.Close(a);
  EXPECT_EQ(registry_.Resolve(c, Resolve("rib")).instance_name(), "rib-2");
}

TEST_F(RegistryTest, WatchersAndResolversHearOfDeath) {
  Recorder watcher_sink, rib_sink;
  SessionId watcher = registry_.Open(&watcher_sink);
  ASSERT_TRUE(Join(registry_, watcher, Component("bgp", "bgp")).ok());
  SessionId rib = registry_.Open(&rib_sink);
  ASSERT_TRUE(Join(registry_, rib, Component("rib", "rib")).ok());
  v1::WatchRequest watch;
  watch.set_watch_id(3);
  watch.set_class_name("rib");
  registry_.Watch(watcher, watch);
  registry_.Resolve(watcher, Resolve("rib"));
  registry_.Close(rib);
  EXPECT_EQ(watcher_sink.Lifetimes(),
            (std::vector<std::string>{"birth rib", "synced", "invalidate rib", "death rib"}));
  ASSERT_TRUE(watcher_sink.events[0].has_visible());  // its own registration
  EXPECT_EQ(watcher_sink.events[1].lifetime().watch_id(), 3u);
  EXPECT_EQ(watcher_sink.events[1].lifetime().incarnation(), "inc-rib");
  // A new instance is born to the same watch; unwatching stops events.
  SessionId rib2 = registry_.Open(&rib_sink);
  ASSERT_TRUE(Join(registry_, rib2, Component("rib", "rib")).ok());
  EXPECT_EQ(watcher_sink.Lifetimes().back(), "birth rib");
  registry_.Unwatch(watcher, 3);
  registry_.Close(rib2);
  EXPECT_EQ(watcher_sink.Lifetimes().back(), "birth rib");
}

TEST_F(RegistryTest, GraceHoldsSyncedBackAndPreviousKeysAreKept) {
  Registry registry(
      AccessList(), [this] { return Key(); }, /*in_grace=*/true);
  Recorder sink;
  SessionId s = registry.Open(&sink);
  v1::Registration reg = Component("rib", "rib");
  auto* previous = reg.add_previous_keys();
  previous->set_method("/sluice.rib.v1.Rib/AddRoute4");
  previous->set_key("0123456789abcdef");
  auto registered = Join(registry, s, reg);
  ASSERT_TRUE(registered.ok());
  EXPECT_EQ(registered->keys(0).key(), "0123456789abcdef");
  EXPECT_NE(registered->keys(1).key(), "0123456789abcdef");
  v1::WatchRequest watch;
  watch.set_watch_id(1);
  watch.set_instance_name("rib");
  registry.Watch(s, watch);
  EXPECT_EQ(sink.Lifetimes(), (std::vector<std::string>{"birth rib"}));
  registry.EndGrace();
  EXPECT_EQ(sink.Lifetimes(), (std::vector<std::string>{"birth rib", "synced"}));
}

TEST_F(RegistryTest, AccessListDecidesResolution) {
  auto acl = AccessList::Parse("allow bgp rib rib/1.0\n");
  ASSERT_TRUE(acl.ok());
  Registry registry(
      *acl, [this] { return Key(); }, false);
  Recorder sink;
  SessionId rib = registry.Open(&sink), bgp = registry.Open(&sink), cli = registry.Open(&sink);
  ASSERT_TRUE(Join(registry, rib, Component("rib", "rib")).ok());
  ASSERT_TRUE(Join(registry, bgp, Component("bgp", "bgp")).ok());
  ASSERT_TRUE(Join(registry, cli, Component("sluice", "sluice-1")).ok());
  EXPECT_EQ(registry.Resolve(bgp, Resolve("rib")).code(), 0);
  auto denied = registry.Resolve(cli, Resolve("rib"));
  EXPECT_EQ(denied.code(), static_cast<int>(absl::StatusCode::kPermissionDenied));
  EXPECT_THAT(denied.message(),
              HasSubstr("does not allow sluice-1 (class sluice) to call rib/1.0 on rib"));
  EXPECT_TRUE(denied.keys().empty());
}

TEST_F(RegistryTest, InvisibleUntilReady) {
  Recorder watcher_sink, sink;
  SessionId watcher = registry_.Open(&watcher_sink);
  ASSERT_TRUE(Join(registry_, watcher, Component("bgp", "bgp")).ok());
  v1::WatchRequest watch;
  watch.set_watch_id(1);
  watch.set_class_name("rib");
  registry_.Watch(watcher, watch);
  SessionId rib = registry_.Open(&sink);
  ASSERT_TRUE(registry_.Register(rib, Component("rib", "rib")).ok());
  EXPECT_EQ(registry_.Resolve(watcher, Resolve("rib")).code(),
            static_cast<int>(absl::StatusCode::kNotFound));
  EXPECT_EQ(registry_.ListTargets().targets_size(), 1);
  EXPECT_EQ(watcher_sink.Lifetimes(), (std::vector<std::string>{"synced"}));
  // The name is reserved meanwhile.
  SessionId other = registry_.Open(&sink);
  EXPECT_EQ(registry_.Register(other, Component("rib", "rib")).status().code(),
            absl::StatusCode::kAlreadyExists);
  registry_.Ready(rib);
  EXPECT_EQ(registry_.Resolve(watcher, Resolve("rib")).code(), 0);
  EXPECT_EQ(watcher_sink.Lifetimes(), (std::vector<std::string>{"synced", "birth rib"}));
}

// Just after a Finder restart, a process may resolve a target that has not re-registered yet:
// the answer waits for the target (or for the grace to end) instead of failing the call.
TEST(RegistryGraceTest, AResolveDuringTheGraceWaitsForItsTarget) {
  int keys = 0;
  Registry registry(
      AccessList(), [&] { return std::string(15, 'k') + static_cast<char>('a' + keys++); },
      /*in_grace=*/true);
  Recorder bgp_sink, rib_sink;
  auto answers = [&] {  // the resolve answers bgp received
    std::vector<v1::ResolveReply> out;
    for (const auto& e : bgp_sink.events) {
      if (e.has_resolved()) out.push_back(e.resolved());
    }
    return out;
  };
  SessionId bgp = registry.Open(&bgp_sink);
  ASSERT_TRUE(Join(registry, bgp, Component("bgp", "bgp")).ok());
  EXPECT_FALSE(registry.ResolveOrDefer(bgp, Resolve("rib", 7)).has_value());
  EXPECT_FALSE(registry.ResolveOrDefer(bgp, Resolve("fea", 8)).has_value());
  EXPECT_TRUE(answers().empty());

  SessionId rib = registry.Open(&rib_sink);
  ASSERT_TRUE(registry.Register(rib, Component("rib", "rib")).ok());
  EXPECT_TRUE(answers().empty());  // registered, not ready: still waiting
  registry.Ready(rib);
  ASSERT_EQ(answers().size(), 1u);
  EXPECT_EQ(answers()[0].id(), 7u);
  EXPECT_EQ(answers()[0].code(), 0);
  EXPECT_EQ(answers()[0].instance_name(), "rib");

  // A target that never comes back: NotFound when the grace ends.
  registry.EndGrace();
  ASSERT_EQ(answers().size(), 2u);
  EXPECT_EQ(answers()[1].id(), 8u);
  EXPECT_EQ(answers()[1].code(), static_cast<int>(absl::StatusCode::kNotFound));
  // After the grace, an unknown target fails at once.
  auto now = registry.ResolveOrDefer(bgp, Resolve("fea", 9));
  ASSERT_TRUE(now.has_value());
  EXPECT_EQ(now->code(), static_cast<int>(absl::StatusCode::kNotFound));
}

TEST_F(RegistryTest, ListTargetsAndDescriptors) {
  Recorder sink;
  SessionId a = registry_.Open(&sink);
  v1::Registration reg = Component("rib", "rib");
  reg.add_file_descriptors("fd-bytes");
  ASSERT_TRUE(Join(registry_, a, reg).ok());
  auto list = registry_.ListTargets();
  ASSERT_EQ(list.targets_size(), 1);
  EXPECT_EQ(list.targets(0).services(0).methods(1), "DeleteRoute4");
  auto descriptors = registry_.GetDescriptors("sluice.rib.v1.Rib");
  ASSERT_TRUE(descriptors.ok());
  EXPECT_EQ(descriptors->file_descriptors(0), "fd-bytes");
  EXPECT_EQ(registry_.GetDescriptors("sluice.nope.v1.Nope").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sluice::finder
