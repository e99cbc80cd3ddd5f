// Mutual TLS between hosts (DESIGN.md § Security, ipc/transport.h): the Finder, sluice-fea and
// sluice-rib reach each other over TCP only, each with a certificate from the test's own CA
// naming its class. A route goes from this test (class bgp, by its certificate) through the RIB
// to the FEA; a client without a certificate, with one for another class, or in plain text is
// refused. Two FEAs as forwarding engines on other hosts, each with a certificate naming its
// instance ("fea/fea-b"), are both fed; a certificate for one instance registers no other.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "ipc/proto/fea_fib.pb.h"
#include "ipc/proto/finder.grpc.pb.h"
#include "ipc/proto/rib.pb.h"
#include "ipc/transport.h"
#include "ipc/types_convert.h"
#include "ipc/xrl_router.h"
#include "rtrmgr/cli/sync_client.h"
#include "tests/system/child_process.h"
#include "tests/system/test_certificates.h"

namespace sluice::testing {
namespace {

using ::testing::HasSubstr;

const ipc::Method<rib::v1::AddRoute4Request, rib::v1::RouteReply> kAddRoute4{"rib/1.0/add_route4"};
const ipc::Method<fea_fib::v1::LookupRouteByNetworkRequest, fea_fib::v1::LookupRouteReply>
    kFeaLookup{"fea_fib/1.0/lookup_route_by_network"};

class TlsSystemTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!HaveOpenssl()) {
      GTEST_SKIP() << "needs the openssl command (Debian package openssl) to make certificates";
    }
    char dir[] = "/tmp/sluice-tls.XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    dir_ = dir;
    ASSERT_TRUE(MakeCertificates({"finder", "fea", "rib", "bgp"}));
    finder_address_ = absl::StrCat("tcp:127.0.0.1:", FreeTcpPort());
  }
  void TearDown() override {
    client_.reset();
    rib_.reset();
    fea_.reset();
    finder_.reset();
    ipc::SetTransportSecurity(ipc::TransportSecurity());
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }

  bool MakeCertificates(const std::vector<std::string>& names) {
    return testing::MakeCertificates(dir_, names);
  }

  std::vector<std::string> Env(const std::string& name) const {
    std::vector<std::string> env = TlsEnv(dir_, name);
    env.push_back("SLUICE_RUNDIR=" + dir_);
    return env;
  }

  ipc::TlsFiles Files(const std::string& name) const {
    return {Path("ca.pem"), CertificateFile(dir_, name), KeyFile(dir_, name)};
  }

  grpc::SslCredentialsOptions Ssl(const std::string& name) const {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = Read("ca.pem");
    if (!name.empty()) {
      options.pem_cert_chain = Read(name + ".pem");
      options.pem_private_key = Read(name + ".key");
    }
    return options;
  }
  std::string Read(const std::string& file) const {
    std::ifstream in(Path(file));
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  std::unique_ptr<finder::v1::Finder::Stub> FinderStub(
      std::shared_ptr<grpc::ChannelCredentials> credentials) {
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("finder");
    return finder::v1::Finder::NewStub(grpc::CreateCustomChannel(
        "ipv4:" + finder_address_.substr(4), std::move(credentials), args));
  }
  grpc::Status ListTargets(std::shared_ptr<grpc::ChannelCredentials> credentials) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    finder::v1::ListTargetsReply reply;
    return FinderStub(std::move(credentials))->ListTargets(&context, {}, &reply);
  }

  void StartFinder() {
    finder_ = ChildProcess::Start(
        {BuildPath("finder/sluice-finder"), "--listen", finder_address_, "--grace-ms", "0"},
        Env("finder"));
    ASSERT_TRUE(finder_);
    for (int i = 0; i < 200 && !ListTargets(grpc::SslCredentials(Ssl("bgp"))).ok(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ASSERT_TRUE(ListTargets(grpc::SslCredentials(Ssl("bgp"))).ok()) << finder_->Output();
  }
  // A sluice-fea over TCP with the certificate `certificate`, registering as `instance`; its
  // log (stderr) joins its Output().
  std::unique_ptr<ChildProcess> StartFea(const std::string& certificate,
                                         const std::string& instance) {
    return ChildProcess::Start(
        {"/bin/sh", "-c", "exec \"$0\" \"$@\" 2>&1", BuildPath("fea/sluice-fea"), "--finder",
         finder_address_, "--listen", "tcp:127.0.0.1:0", "--instance", instance, "--interface",
         "eth0=10.1.0.1/24"},
        Env(certificate));
  }
  void StartRib() {
    rib_ = ChildProcess::Start(
        {BuildPath("rib/sluice-rib"), "--finder", finder_address_, "--listen", "tcp:127.0.0.1:0"},
        Env("rib"));
    ASSERT_TRUE(rib_);
  }
  void StartProcesses() {
    ASSERT_NO_FATAL_FAILURE(StartFinder());
    fea_ = StartFea("fea", "fea");
    ASSERT_TRUE(fea_);
    ASSERT_NO_FATAL_FAILURE(StartRib());
  }
  // As this test's class bgp: adds `prefix` via 10.1.0.254, once the RIB answers.
  absl::Status AddRoute(const std::string& prefix) {
    rib::v1::AddRoute4Request add;
    add.set_protocol("ebgp");
    ipc::ToProto(*net::Prefix::Parse(prefix), add.mutable_network());
    ipc::ToProto(*net::IPv4Address::Parse("10.1.0.254"), add.mutable_nexthop());
    absl::StatusOr<rib::v1::RouteReply> added = absl::UnavailableError("not yet");
    for (int i = 0; i < 100 && !added.ok(); ++i) {  // until the RIB and the FEA are up
      added = client_->Call("rib", kAddRoute4, add);
      if (!added.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return added.status();
  }
  // Whether FEA `fea` comes to hold `prefix` within `ms`.
  bool FeaHolds(const std::string& fea, const std::string& prefix, int ms = 10000) {
    fea_fib::v1::LookupRouteByNetworkRequest lookup;
    ipc::ToProto(*net::Prefix::Parse(prefix), lookup.mutable_network());
    for (int i = 0; i < ms / 100; ++i) {
      auto reply = client_->Call(fea, kFeaLookup, lookup);
      if (reply.ok() && reply->found()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

  std::string dir_;
  std::string finder_address_;
  std::unique_ptr<ChildProcess> finder_, fea_, rib_;
  std::unique_ptr<rtrmgr::cli::SyncClient> client_;
};

TEST_F(TlsSystemTest, ARouteCrossesTcpWithMutualTlsAndStrangersAreRefused) {
  ASSERT_NO_FATAL_FAILURE(StartProcesses());
  // This test is class bgp by its certificate.
  ipc::SetTransportSecurity(ipc::TransportSecurity{.tls = Files("bgp"), .insecure = false});
  client_ = std::make_unique<rtrmgr::cli::SyncClient>(finder_address_, 20000, "bgp");

  ASSERT_TRUE(AddRoute("10.99.0.0/16").ok()) << fea_->Output() << rib_->Output();
  EXPECT_TRUE(FeaHolds("fea", "10.99.0.0/16")) << "the route did not reach the FEA over TLS\n"
                                               << rib_->Output();

  // No certificate, or plain text: no connection at all.
  EXPECT_EQ(ListTargets(grpc::SslCredentials(Ssl(""))).error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(ListTargets(grpc::InsecureChannelCredentials()).error_code(),
            grpc::StatusCode::UNAVAILABLE);

  // A certificate for class bgp cannot register as the FEA.
  grpc::ClientContext context;
  auto session = FinderStub(grpc::SslCredentials(Ssl("bgp")))->Session(&context);
  finder::v1::SessionRequest request;
  auto* registration = request.mutable_registration();
  registration->set_class_name("fea");
  registration->set_instance_name("fea-evil");
  registration->add_endpoints("tcp:127.0.0.1:9");
  ASSERT_TRUE(session->Write(request));
  finder::v1::SessionEvent event;  // the Finder answers by ending the stream
  EXPECT_FALSE(session->Read(&event));
  grpc::Status refused = session->Finish();
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_THAT(refused.error_message(), HasSubstr("does not allow registering class fea"));
}

// Forwarding engines on other hosts: each FEA's certificate names its instance, the RIB feeds
// both, and a certificate for one instance does not register another.
TEST_F(TlsSystemTest, TwoFeasWithCertificatesForTheirInstancesAreBothFedAndNoOtherName) {
  ASSERT_TRUE(MakeCertificates({"fea/fea-b", "fea/fea-c"}));
  ASSERT_NO_FATAL_FAILURE(StartFinder());
  auto b = StartFea("fea/fea-b", "fea-b");
  auto c = StartFea("fea/fea-c", "fea-c");
  ASSERT_TRUE(b && c);
  ASSERT_NO_FATAL_FAILURE(StartRib());
  ipc::SetTransportSecurity(ipc::TransportSecurity{.tls = Files("bgp"), .insecure = false});
  client_ = std::make_unique<rtrmgr::cli::SyncClient>(finder_address_, 20000, "bgp");
  ASSERT_TRUE(AddRoute("10.99.0.0/16").ok()) << b->Output() << rib_->Output();
  EXPECT_TRUE(FeaHolds("fea-b", "10.99.0.0/16")) << b->Output() << rib_->Output();
  EXPECT_TRUE(FeaHolds("fea-c", "10.99.0.0/16")) << c->Output() << rib_->Output();

  // fea-b's certificate, another instance name: the Finder refuses it, again and again.
  auto thief = StartFea("fea/fea-b", "fea-d");
  ASSERT_TRUE(thief);
  EXPECT_TRUE(thief->WaitForOutput("does not allow registering class fea instance fea-d", 20000))
      << thief->Output();
  EXPECT_FALSE(FeaHolds("fea-d", "10.99.0.0/16", 1000));
}

}  // namespace
}  // namespace sluice::testing
