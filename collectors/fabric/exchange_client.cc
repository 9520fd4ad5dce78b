#include "collectors/fabric/exchange_client.h"

#include <fstream>
#include <sstream>

#include "collectors/common/base64.h"

namespace rnic::fabric {
namespace {

const std::string kPasswordKey = "fabric.exchange_basic_auth.password_file";

}  // namespace

std::string BasicAuthHeader(const std::string& username,
                            const std::string& password) {
  return "Authorization: Basic " + EncodeBase64(username + ":" + password) +
         "\r\n";
}

Result<std::string> ReadPasswordFile(const std::string& path,
                                     const std::string& key) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return Error::FromErrno(key + ": cannot read '" + path + "'", errno);
  std::ostringstream s;
  s << f.rdbuf();
  std::string text = s.str();
  const auto space = " \t\r\n";
  text.erase(0, std::min(text.find_first_not_of(space), text.size()));
  text.erase(text.find_last_not_of(space) + 1);
  if (text.find_first_of("\r\n") != std::string::npos)
    return Error{key + ": '" + path + "' holds more than one line"};
  return text;
}

Result<std::shared_ptr<ExchangeClient>> ExchangeClient::Create(
    const FabricConfig& config) {
  std::shared_ptr<ExchangeClient> c(new ExchangeClient());
  if (config.exchange_https) {
    auto t = TlsClient::Create(config.exchange_tls);
    if (!t) return t.error();
    c->tls_ = std::move(*t);
  }
  if (config.exchange_basic_auth) {
    auto p = ReadPasswordFile(config.exchange_basic_auth->password_file,
                              kPasswordKey);
    if (!p) return p.error();
    c->auth_ = config.exchange_basic_auth;
  }
  return c;
}

Result<std::string> ExchangeClient::Get(
    const std::string& host, int port, const std::string& path,
    std::chrono::milliseconds timeout) const {
  if (!tls_ && !auth_) return HttpGetBody(host, port, path, timeout);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string headers;
  if (auth_) {
    auto p = ReadPasswordFile(auth_->password_file, kPasswordKey);
    if (!p) return p.error();
    headers = BasicAuthHeader(auth_->username, *p);
  }
  auto fd = ConnectTcp(host, port, deadline);
  if (!fd) return fd.error();
  std::unique_ptr<Conn> conn;
  if (tls_) {
    auto t = tls_->Handshake(*fd, host, deadline);
    if (!t) return t.error();
    conn = std::move(*t);
  } else {
    conn = MakePlainConn(*fd);
  }
  return HttpGetOver(*conn, host, port, path, headers, deadline, 1 << 20);
}

HttpGet ExchangeClient::AsHttpGet() const {
  return [self = shared_from_this()](const std::string& host, int port,
                                     const std::string& path,
                                     std::chrono::milliseconds timeout) {
    return self->Get(host, port, path, timeout);
  };
}

}  // namespace rnic::fabric
