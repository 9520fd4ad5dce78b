#include "collectors/fabric/http_get.h"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

namespace rnic::fabric {
namespace {

TEST(HttpGetTest, ParseAnswer) {
  EXPECT_EQ(ParseHttpAnswer("HTTP/1.1 200 OK\r\nA: b\r\n\r\nbody").value(),
            "body");
  EXPECT_EQ(ParseHttpAnswer("HTTP/1.1 404 Not Found\r\n\r\n").error().message,
            "HTTP status 404");
  EXPECT_FALSE(ParseHttpAnswer("").ok());
  EXPECT_FALSE(ParseHttpAnswer("SSH-2.0-OpenSSH\r\n").ok());
  EXPECT_FALSE(ParseHttpAnswer("HTTP/1.1 200 OK\r\nno end").ok());
}

// A one-shot server on 127.0.0.1 answering `answer` to the first request.
struct OneShot {
  int fd = -1;
  int port = 0;
  std::thread t;
  std::string request;
  explicit OneShot(std::string answer) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    socklen_t len = sizeof a;
    getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
    listen(fd, 1);
    t = std::thread([this, answer] {
      const int c = accept(fd, nullptr, nullptr);
      char buf[1024];
      const ssize_t n = recv(c, buf, sizeof buf, 0);
      if (n > 0) request.assign(buf, static_cast<std::size_t>(n));
      send(c, answer.data(), answer.size(), MSG_NOSIGNAL);
      close(c);
    });
  }
  ~OneShot() {
    t.join();
    close(fd);
  }
};

TEST(HttpGetTest, GetsTheBodyOverLoopback) {
  std::string got;
  std::string request;
  {
    OneShot server("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
    auto r = HttpGetBody("127.0.0.1", server.port, "/fabric/addresses",
                         std::chrono::seconds(10));
    ASSERT_TRUE(r.ok()) << r.error().ToString();
    got = *r;
    server.t.join();
    server.t = std::thread([] {});
    request = server.request;
  }
  EXPECT_EQ(got, "{}");
  EXPECT_EQ(request.rfind("GET /fabric/addresses HTTP/1.0\r\n", 0), 0u);
}

TEST(HttpGetTest, ErrorsAreValues) {
  OneShot server("HTTP/1.1 500 Oops\r\n\r\n");
  auto r = HttpGetBody("127.0.0.1", server.port, "/", std::chrono::seconds(10));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "HTTP status 500");
  // Nothing listens on a port just closed.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  EXPECT_FALSE(
      HttpGetBody("127.0.0.1", ntohs(a.sin_port), "/", std::chrono::seconds(10))
          .ok());
}

}  // namespace
}  // namespace rnic::fabric
