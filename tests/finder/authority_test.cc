// Who may register as what, and what people may call (finder/authority.h, Registry::Relay).
#include "finder/authority.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "finder/registry.h"
#include "ipc/caller_key.h"

namespace sluice::finder {
namespace {

using ::testing::HasSubstr;

constexpr gid_t kOps = 5000;
constexpr gid_t kAdmins = 5001;
const std::string kMasterKey(32, 'm');

ipc::PeerIdentity UnixPeer(uid_t uid, std::vector<gid_t> groups = {}) {
  ipc::PeerIdentity peer;
  peer.transport = ipc::PeerIdentity::Transport::kUnix;
  peer.uid = uid;
  peer.gid = 100;
  peer.pid = 4242;
  peer.groups = std::move(groups);
  return peer;
}

ipc::PeerIdentity TlsPeer(const std::string& certificate) {
  ipc::PeerIdentity peer;
  peer.transport = ipc::PeerIdentity::Transport::kTls;
  peer.certificate_name = certificate;
  return peer;
}

v1::Registration Component(const std::string& class_name, const std::string& instance,
                           const std::string& credential = "") {
  v1::Registration r;
  r.set_class_name(class_name);
  r.set_instance_name(instance);
  r.add_endpoints("unix:/tmp/" + instance + ".sock");
  r.set_credential(credential);
  auto* service = r.add_services();
  service->set_name("sluice.rib.v1.Rib");
  service->add_methods("AddRoute4");
  service->add_methods("ListRoutes");
  service->add_read_methods("ListRoutes");
  return r;
}

v1::Registration PureClient() {
  v1::Registration r;
  r.set_class_name("sluice");
  return r;
}

AuthorityOptions Options(std::string master_key = kMasterKey) {
  AuthorityOptions o;
  o.master_key = std::move(master_key);
  o.operator_group = kOps;
  o.admin_group = kAdmins;
  o.finder_uid = 998;
  return o;
}

TEST(AuthorityTest, AClassNeedsItsCredentialWhateverTheCallersUser) {
  Authority authority(Options());
  const std::string fea = ipc::ClassCredential(kMasterKey, "fea");
  EXPECT_TRUE(authority.Admit(UnixPeer(998), Component("fea", "fea", fea)).ok());
  // Another class's credential, none at all, even from the Finder's own user or root.
  for (const auto& peer : {UnixPeer(998), UnixPeer(0), UnixPeer(1001, {kAdmins})}) {
    auto wrong =
        authority.Admit(peer, Component("fea", "fea", ipc::ClassCredential(kMasterKey, "bgp")));
    EXPECT_EQ(wrong.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("wrong credential"));
    auto none = authority.Admit(peer, Component("fea", "fea"));
    EXPECT_EQ(none.status().code(), absl::StatusCode::kPermissionDenied);
    EXPECT_THAT(std::string(none.status().message()), HasSubstr("class credential"));
  }
}

TEST(AuthorityTest, WithoutAMasterKeyTheFindersOwnUserAndRootAreTrusted) {
  Authority authority(Options(""));
  EXPECT_TRUE(authority.Admit(UnixPeer(998), Component("fea", "fea")).ok());
  EXPECT_TRUE(authority.Admit(UnixPeer(0), Component("fea", "fea")).ok());
  EXPECT_EQ(authority.Admit(UnixPeer(1001), Component("fea", "fea")).status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(AuthorityTest, PeopleGetTheRoleOfTheirGroupsOrNothing) {
  Authority authority(Options());
  auto op = authority.Admit(UnixPeer(1001, {7, kOps}), PureClient());
  ASSERT_TRUE(op.ok()) << op.status();
  EXPECT_TRUE(op->person);
  EXPECT_EQ(op->role, Role::kOperator);
  EXPECT_EQ(authority.Admit(UnixPeer(1002, {kOps, kAdmins}), PureClient())->role, Role::kAdmin);
  EXPECT_EQ(authority.Admit(UnixPeer(0), PureClient())->role, Role::kAdmin);
  auto nobody = authority.Admit(UnixPeer(1003, {7}), PureClient());
  EXPECT_EQ(nobody.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(nobody.status().message()), HasSubstr("has no Sluice role"));
  // The daemons' own user is nobody's role either.
  EXPECT_FALSE(authority.Admit(UnixPeer(998), PureClient()).ok());
  EXPECT_FALSE(authority.Identify(UnixPeer(1003)).ok());
  EXPECT_TRUE(authority.Identify(UnixPeer(1001, {kOps})).ok());
}

TEST(AuthorityTest, ACertificateNamesTheClassAndMaybeTheInstance) {
  Authority authority(Options());
  EXPECT_TRUE(authority.Admit(TlsPeer("fea"), Component("fea", "fea-host1")).ok());
  EXPECT_TRUE(authority.Admit(TlsPeer("fea/host1"), Component("fea", "host1")).ok());
  EXPECT_EQ(authority.Admit(TlsPeer("bgp"), Component("fea", "fea")).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(authority.Admit(TlsPeer("fea/host1"), Component("fea", "host2")).status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(AuthorityTest, ClassUserIsReserved) {
  Authority authority(Options(""));
  EXPECT_EQ(authority.Admit(UnixPeer(998), Component("user", "alice")).status().code(),
            absl::StatusCode::kPermissionDenied);
}

class RecordingSink : public SessionSink {
 public:
  void Send(v1::SessionEvent event) override { events.push_back(std::move(event)); }
  std::vector<v1::SessionEvent> events;
};

TEST(AuthorityTest, AnOperatorReadsThroughTheRelayAndAnAdminWrites) {
  Registry registry(
      AccessList(), [] { return std::string(16, 's'); }, false, Authority(Options()));
  RecordingSink sink;
  SessionId rib = registry.Open(&sink, UnixPeer(998));
  ASSERT_TRUE(
      registry.Register(rib, Component("rib", "rib", ipc::ClassCredential(kMasterKey, "rib")))
          .ok());
  registry.Ready(rib);
  SessionId cli = registry.Open(&sink, UnixPeer(1001, {kOps}));
  ASSERT_TRUE(registry.Register(cli, PureClient()).ok());

  v1::ResolveRequest resolve;
  resolve.set_target("rib");
  resolve.set_service("sluice.rib.v1.Rib");
  v1::ResolveReply reply = registry.Resolve(cli, resolve);
  EXPECT_TRUE(reply.relay());
  EXPECT_EQ(reply.endpoints_size(), 0);
  for (const auto& key : reply.keys()) EXPECT_TRUE(key.key().empty());

  Principal op{.person = true, .role = Role::kOperator, .user_name = "alice", .certificate = ""};
  auto read = registry.Relay(op, "rib", "/sluice.rib.v1.Rib/ListRoutes");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->caller_id, "user/alice");
  EXPECT_EQ(read->key, ipc::CallerKey(std::string(16, 's'), "user/alice"));
  auto write = registry.Relay(op, "rib", "/sluice.rib.v1.Rib/AddRoute4");
  EXPECT_EQ(write.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(std::string(write.status().message()), HasSubstr("needs role admin"));
  Principal admin{.person = true, .role = Role::kAdmin, .user_name = "root", .certificate = ""};
  EXPECT_TRUE(registry.Relay(admin, "rib", "/sluice.rib.v1.Rib/AddRoute4").ok());
  EXPECT_EQ(registry.Relay(admin, "rib", "/sluice.rib.v1.Rib/Nope").status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace sluice::finder
