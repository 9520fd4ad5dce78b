// The address exchange's client (libcurl) against real sockets on the
// loopback: the answer's body, the request it sends, basic auth, a non-200
// status, the size limit, timeouts in the connect and answer steps, and
// errors that name host:port and the step. HTTPS is tested end to end
// against the real exporter (tests/e2e/test_fabric_tls.py).
#include "collectors/fabric/exchange_client.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <thread>

namespace rnic::fabric {
namespace {

constexpr std::chrono::seconds kGenerous{30};

// A listening TCP socket on a loopback address with a kernel-chosen port.
struct Listener {
  int fd = -1;
  int port = 0;
  explicit Listener(int family = AF_INET, int backlog = 4) {
    fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_storage s{};
    socklen_t len;
    if (family == AF_INET6) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&s);
      a->sin6_family = AF_INET6;
      a->sin6_addr = in6addr_loopback;
      len = sizeof *a;
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&s);
      a->sin_family = AF_INET;
      a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      len = sizeof *a;
    }
    if (bind(fd, reinterpret_cast<sockaddr*>(&s), len) != 0 ||
        listen(fd, backlog) != 0) {
      close(fd);
      fd = -1;
      return;
    }
    getsockname(fd, reinterpret_cast<sockaddr*>(&s), &len);
    port = ntohs(family == AF_INET6
                     ? reinterpret_cast<sockaddr_in6*>(&s)->sin6_port
                     : reinterpret_cast<sockaddr_in*>(&s)->sin_port);
  }
  ~Listener() {
    if (fd >= 0) close(fd);
  }
};

// Serves one connection: reads the request up to its blank line, sends
// `answer` and closes; with `hold`, first waits until the client closes.
class OneConnectionServer {
 public:
  explicit OneConnectionServer(std::string answer, bool hold = false,
                               int family = AF_INET)
      : listener_(family) {
    if (listener_.fd < 0) return;
    thread_ = std::thread([this, answer = std::move(answer), hold] {
      const int c = accept(listener_.fd, nullptr, nullptr);
      if (c < 0) return;
      char buf[4096];
      while (request_.find("\r\n\r\n") == std::string::npos) {
        const ssize_t n = recv(c, buf, sizeof buf, 0);
        if (n <= 0) break;
        request_.append(buf, static_cast<std::size_t>(n));
      }
      if (hold) {
        while (recv(c, buf, sizeof buf, 0) > 0) {
        }
      }
      // The client may stop reading (size limit): errors end the answer.
      std::size_t sent = 0;
      while (sent < answer.size()) {
        const ssize_t n =
            send(c, answer.data() + sent, answer.size() - sent, MSG_NOSIGNAL);
        if (n <= 0) break;
        sent += static_cast<std::size_t>(n);
      }
      close(c);
    });
  }
  ~OneConnectionServer() { Join(); }
  [[nodiscard]] bool ok() const { return listener_.fd >= 0; }
  [[nodiscard]] int port() const { return listener_.port; }
  // What the client sent, once the connection is over.
  const std::string& Request() {
    Join();
    return request_;
  }

 private:
  void Join() {
    if (thread_.joinable()) thread_.join();
  }
  Listener listener_;
  std::thread thread_;
  std::string request_;
};

std::shared_ptr<ExchangeClient> PlainClient(const FabricConfig& cfg = {}) {
  auto c = ExchangeClient::Create(cfg);
  EXPECT_TRUE(c.ok()) << c.error().ToString();
  return c.ok() ? *c : nullptr;
}

std::string Ok(const std::string& body) {
  return "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
         "Content-Length: " +
         std::to_string(body.size()) + "\r\n\r\n" + body;
}

std::string ErrorOf(const Result<std::string>& r) {
  return r.ok() ? "(ok)" : r.error().ToString();
}

TEST(ExchangeClientHttpTest, GetsTheBodyAndSendsAPlainGet) {
  OneConnectionServer server(Ok("{\"version\":1}"));
  ASSERT_TRUE(server.ok());
  auto r = PlainClient()->Get("127.0.0.1", server.port(), "/fabric/addresses",
                              kGenerous);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_EQ(*r, "{\"version\":1}");
  const std::string& req = server.Request();
  EXPECT_EQ(req.rfind("GET /fabric/addresses HTTP/1.1\r\n", 0), 0u) << req;
  EXPECT_NE(
      req.find("\r\nHost: 127.0.0.1:" + std::to_string(server.port()) + "\r\n"),
      std::string::npos)
      << req;
  EXPECT_EQ(req.find("Authorization:"), std::string::npos) << req;
}

TEST(ExchangeClientHttpTest, BasicAuthFromThePasswordFile) {
  const std::string pw = ::testing::TempDir() + "/rnic_exchange_client_pw";
  { std::ofstream(pw) << "s3cret\n"; }
  FabricConfig cfg;
  cfg.exchange_basic_auth = ExchangeBasicAuth{"fabric", pw};
  auto client = PlainClient(cfg);
  ASSERT_NE(client, nullptr);
  {
    OneConnectionServer server(Ok("{}"));
    ASSERT_TRUE(client->Get("127.0.0.1", server.port(), "/", kGenerous).ok());
    // base64("fabric:s3cret")
    EXPECT_NE(server.Request().find(
                  "\r\nAuthorization: Basic ZmFicmljOnMzY3JldA==\r\n"),
              std::string::npos)
        << server.Request();
  }
  // The file is read at every exchange: a rotated password is used at once.
  { std::ofstream(pw) << "n3w\n"; }
  {
    OneConnectionServer server(Ok("{}"));
    ASSERT_TRUE(client->Get("127.0.0.1", server.port(), "/", kGenerous).ok());
    // base64("fabric:n3w")
    EXPECT_NE(server.Request().find("Authorization: Basic ZmFicmljOm4zdw=="),
              std::string::npos)
        << server.Request();
  }
  std::remove(pw.c_str());
  auto r = client->Get("127.0.0.1", 1, "/", kGenerous);
  EXPECT_NE(
      ErrorOf(r).find("fabric.exchange_basic_auth.password_file: cannot read"),
      std::string::npos)
      << ErrorOf(r);
}

TEST(ExchangeClientHttpTest, NonOkStatusIsAnErrorNamingIt) {
  OneConnectionServer server(
      "HTTP/1.1 401 Unauthorized\r\nContent-Length: 5\r\n\r\nnope\n");
  auto r = PlainClient()->Get("127.0.0.1", server.port(), "/", kGenerous);
  EXPECT_EQ(ErrorOf(r),
            "127.0.0.1:" + std::to_string(server.port()) + ": HTTP status 401");
}

TEST(ExchangeClientHttpTest, RefusedConnectionNamesTheStep) {
  int port = 0;
  { port = Listener().port; }  // nothing listens on a port just closed
  auto r = PlainClient()->Get("127.0.0.1", port, "/", kGenerous);
  EXPECT_EQ(ErrorOf(r), "127.0.0.1:" + std::to_string(port) +
                            ": connect: Connection refused");
}

TEST(ExchangeClientHttpTest, AnswerUpToTheLimitIsTakenOneByteMoreIsNot) {
  const std::string full(kMaxExchangeAnswer, 'x');
  {
    OneConnectionServer server(Ok(full));
    auto r = PlainClient()->Get("127.0.0.1", server.port(), "/", kGenerous);
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    EXPECT_EQ(r->size(), kMaxExchangeAnswer);
  }
  const std::string want_error = ": answer: larger than 1048576 bytes";
  {
    // Announced by Content-Length: refused before the body.
    OneConnectionServer server(Ok(full + "x"));
    auto r = PlainClient()->Get("127.0.0.1", server.port(), "/", kGenerous);
    EXPECT_EQ(ErrorOf(r),
              "127.0.0.1:" + std::to_string(server.port()) + want_error);
  }
  {
    // No length: the body ends at the close, cut off while it arrives.
    OneConnectionServer server("HTTP/1.0 200 OK\r\n\r\n" + full + full);
    auto r = PlainClient()->Get("127.0.0.1", server.port(), "/", kGenerous);
    EXPECT_EQ(ErrorOf(r),
              "127.0.0.1:" + std::to_string(server.port()) + want_error);
  }
}

TEST(ExchangeClientHttpTest, PeerThatNeverAnswersTimesOutInTheAnswerStep) {
  // The server holds the connection until the client gives up.
  OneConnectionServer server("", /*hold=*/true);
  auto r = PlainClient()->Get("127.0.0.1", server.port(), "/",
                              std::chrono::milliseconds(300));
  EXPECT_EQ(ErrorOf(r), "127.0.0.1:" + std::to_string(server.port()) +
                            ": answer: timed out (300 ms for the whole "
                            "exchange)");
}

TEST(ExchangeClientHttpTest, ListenerThatNeverAcceptsTimesOutInTheConnectStep) {
  // Backlog 0 and one connection queued: the kernel drops further SYNs.
  Listener full(AF_INET, 0);
  ASSERT_GE(full.fd, 0);
  const int queued = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(full.port));
  ASSERT_EQ(connect(queued, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  auto r = PlainClient()->Get("127.0.0.1", full.port, "/",
                              std::chrono::milliseconds(300));
  close(queued);
  EXPECT_EQ(ErrorOf(r), "127.0.0.1:" + std::to_string(full.port) +
                            ": connect: timed out (300 ms for the whole "
                            "exchange)");
}

TEST(ExchangeClientHttpTest, TlsPeerAskedInPlainHttpGetsAHint) {
  // A TLS server's answer to plain HTTP: an alert record, or nothing.
  for (const std::string& answer :
       {std::string("\x15\x03\x03\x00\x02\x02\x46", 7), std::string()}) {
    OneConnectionServer server(answer);
    auto r = PlainClient()->Get("127.0.0.1", server.port(), "/", kGenerous);
    EXPECT_EQ(
        ErrorOf(r).rfind(
            "127.0.0.1:" + std::to_string(server.port()) + ": answer: ", 0),
        0u)
        << ErrorOf(r);
    EXPECT_NE(ErrorOf(r).find("(does the peer serve TLS? exchange_scheme: "
                              "https)"),
              std::string::npos)
        << ErrorOf(r);
  }
}

TEST(ExchangeClientHttpTest, Ipv6PeerIsBracketed) {
  OneConnectionServer server(Ok("{}"), false, AF_INET6);
  if (!server.ok()) GTEST_SKIP() << "no IPv6 loopback here";
  auto r = PlainClient()->Get("::1", server.port(), "/", kGenerous);
  ASSERT_TRUE(r.ok()) << r.error().ToString();
  EXPECT_NE(server.Request().find(
                "\r\nHost: [::1]:" + std::to_string(server.port()) + "\r\n"),
            std::string::npos)
      << server.Request();
  // Errors name the peer as it goes into a URL.
  int port = 0;
  { port = Listener(AF_INET6).port; }
  EXPECT_EQ(ErrorOf(PlainClient()->Get("::1", port, "/", kGenerous))
                .rfind("[::1]:" + std::to_string(port) + ": connect: ", 0),
            0u);
}

}  // namespace
}  // namespace rnic::fabric
