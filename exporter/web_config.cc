#include "exporter/web_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

#include "collectors/common/bounded_file.h"
#include "collectors/common/yaml_document.h"
#include "collectors/common/yaml_map.h"
#include "exporter/basic_auth.h"
#include "exporter/http_header.h"

namespace rnic {
namespace {

// Go's crypto/tls names of the TLS 1.2 suites GnuTLS offers, by their
// parts; the TLS 1.3 ones (not configurable) come last. Go's old
// "..._CHACHA20_POLY1305" names without "_SHA256" are aliases.
constexpr CipherSuite kCiphers[] = {
    {"TLS_RSA_WITH_AES_128_CBC_SHA", "RSA", "AES-128-CBC", "SHA1"},
    {"TLS_RSA_WITH_AES_256_CBC_SHA", "RSA", "AES-256-CBC", "SHA1"},
    {"TLS_RSA_WITH_AES_128_GCM_SHA256", "RSA", "AES-128-GCM", "AEAD"},
    {"TLS_RSA_WITH_AES_256_GCM_SHA384", "RSA", "AES-256-GCM", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", "ECDHE-ECDSA", "AES-128-CBC",
     "SHA1"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", "ECDHE-ECDSA", "AES-256-CBC",
     "SHA1"},
    {"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "ECDHE-RSA", "AES-128-CBC", "SHA1"},
    {"TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", "ECDHE-RSA", "AES-256-CBC", "SHA1"},
    {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "ECDHE-ECDSA", "AES-128-GCM",
     "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", "ECDHE-ECDSA", "AES-256-GCM",
     "AEAD"},
    {"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "ECDHE-RSA", "AES-128-GCM",
     "AEAD"},
    {"TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", "ECDHE-RSA", "AES-256-GCM",
     "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-ECDSA",
     "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", "ECDHE-RSA",
     "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305", "ECDHE-ECDSA",
     "CHACHA20-POLY1305", "AEAD"},
    {"TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305", "ECDHE-RSA", "CHACHA20-POLY1305",
     "AEAD"},
    {"TLS_AES_128_GCM_SHA256", "", "AES-128-GCM", "AEAD"},
    {"TLS_AES_256_GCM_SHA384", "", "AES-256-GCM", "AEAD"},
    {"TLS_CHACHA20_POLY1305_SHA256", "", "CHACHA20-POLY1305", "AEAD"},
};

bool SameParts(const CipherSuite& a, const CipherSuite& b) {
  return a.kx == b.kx && a.cipher == b.cipher && a.mac == b.mac;
}

// GnuTLS enables key exchanges, ciphers and MACs separately, so it serves
// every known suite made of listed parts. A list that is not closed under
// that would serve suites nobody asked for: refused, naming one of them.
Status CheckSuitesClosed(const std::vector<CipherSuite>& list,
                         const std::string& where) {
  auto listed = [&list](auto part, std::string_view v) {
    for (const auto& s : list) {
      if (s.*part == v) return true;
    }
    return false;
  };
  for (const auto& k : kCiphers) {
    if (k.kx.empty() || !listed(&CipherSuite::kx, k.kx) ||
        !listed(&CipherSuite::cipher, k.cipher) ||
        !listed(&CipherSuite::mac, k.mac)) {
      continue;
    }
    bool present = false;
    for (const auto& s : list) present = present || SameParts(s, k);
    if (!present) {
      return Error{where +
                   ": GnuTLS enables key exchanges, ciphers and MACs "
                   "one by one, so this list would also enable " +
                   std::string(k.go) + "; add it or drop a suite"};
    }
  }
  return Status::Ok();
}

// exporter-toolkit's allowed extra headers; an empty list allows any value.
struct AllowedHeader {
  std::string_view name;
  std::vector<std::string_view> values;
};
const std::vector<AllowedHeader>& AllowedHeaders() {
  static const std::vector<AllowedHeader> h = {
      {"Strict-Transport-Security", {}},
      {"X-Content-Type-Options", {"nosniff"}},
      {"X-Frame-Options", {"deny", "sameorigin"}},
      {"X-XSS-Protection", {}},
      {"Content-Security-Policy", {}},
  };
  return h;
}

Result<std::string> Text(const YAML::Node& n, const std::string& where) {
  if (!n.IsScalar()) return Error{where + ": expected a string"};
  return n.Scalar();
}

Result<bool> Bool(const YAML::Node& n, const std::string& where) {
  if (n.IsScalar() && n.Scalar() == "true") return true;
  if (n.IsScalar() && n.Scalar() == "false") return false;
  return Error{where + ": expected true or false"};
}

std::string Resolve(const std::string& path, const std::string& base_dir) {
  if (path.empty() || path[0] == '/' || base_dir.empty()) return path;
  return base_dir + "/" + path;
}

Result<TlsVersion> Version(const YAML::Node& n, const std::string& where) {
  auto t = Text(n, where);
  if (!t.ok()) return t.error();
  if (*t == "TLS12") return TlsVersion::kTls12;
  if (*t == "TLS13") return TlsVersion::kTls13;
  if (*t == "TLS10" || *t == "TLS11") {
    return Error{where + ": " + *t + " is not supported; use TLS12 or TLS13"};
  }
  return Error{where + ": expected TLS12 or TLS13, got '" + *t + "'"};
}

Result<ClientAuth> ClientAuthType(const YAML::Node& n,
                                  const std::string& where) {
  auto t = Text(n, where);
  if (!t.ok()) return t.error();
  static constexpr std::pair<std::string_view, ClientAuth> kTypes[] = {
      {"NoClientCert", ClientAuth::kNoClientCert},
      {"RequestClientCert", ClientAuth::kRequestClientCert},
      {"RequireAnyClientCert", ClientAuth::kRequireAnyClientCert},
      {"VerifyClientCertIfGiven", ClientAuth::kVerifyClientCertIfGiven},
      {"RequireAndVerifyClientCert", ClientAuth::kRequireAndVerifyClientCert},
  };
  for (const auto& [name, v] : kTypes) {
    if (*t == name) return v;
  }
  return Error{where +
               ": expected NoClientCert, RequestClientCert, "
               "RequireAnyClientCert, VerifyClientCertIfGiven or "
               "RequireAndVerifyClientCert, got '" +
               *t + "'"};
}

Result<std::optional<TlsConfig>> ParseTls(const YAML::Node& node,
                                          const std::string& base_dir) {
  const std::string w = "tls_server_config";
  Status st = CheckMapKeys(node, w,
                           {"cert_file", "key_file", "client_auth_type",
                            "client_ca_file", "min_version", "max_version",
                            "cipher_suites", "prefer_server_cipher_suites"});
  if (!st.ok()) return st.error();
  if (!node || node.IsNull() || node.size() == 0)
    return std::optional<TlsConfig>();
  TlsConfig c;
  for (const auto& kv : node) {
    const std::string key = kv.first.Scalar();
    const std::string where = w + "." + key;
    const YAML::Node& v = kv.second;
    if (key == "cert_file" || key == "key_file" || key == "client_ca_file") {
      auto t = Text(v, where);
      if (!t.ok()) return t.error();
      if (t->empty()) return Error{where + ": empty path"};
      (key == "cert_file"  ? c.cert_file
       : key == "key_file" ? c.key_file
                           : c.client_ca_file) = Resolve(*t, base_dir);
    } else if (key == "client_auth_type") {
      auto a = ClientAuthType(v, where);
      if (!a.ok()) return a.error();
      c.client_auth = *a;
    } else if (key == "min_version" || key == "max_version") {
      auto ver = Version(v, where);
      if (!ver.ok()) return ver.error();
      if (key == "min_version") {
        c.min_version = *ver;
      } else {
        c.max_version = *ver;
      }
    } else if (key == "cipher_suites") {
      if (!v.IsSequence()) return Error{where + ": expected a list"};
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string wi = where + "[" + std::to_string(i) + "]";
        auto t = Text(v[i], wi);
        if (!t.ok()) return t.error();
        auto suite = FindCipherSuite(*t);
        if (!suite) return Error{wi + ": unknown cipher suite '" + *t + "'"};
        bool dup = false;
        for (const auto& s : c.cipher_suites) dup = dup || SameParts(s, *suite);
        if (!suite->kx.empty() && !dup) c.cipher_suites.push_back(*suite);
      }
      Status closed = CheckSuitesClosed(c.cipher_suites, where);
      if (!closed.ok()) return closed.error();
    } else if (key == "prefer_server_cipher_suites") {
      auto b = Bool(v, where);
      if (!b.ok()) return b.error();
      c.prefer_server_cipher_suites = *b;
    }
  }
  if (c.cert_file.empty()) return Error{w + ".cert_file: missing"};
  if (c.key_file.empty()) return Error{w + ".key_file: missing"};
  if (c.max_version &&
      static_cast<int>(*c.max_version) < static_cast<int>(c.min_version)) {
    return Error{w + ": max_version is below min_version"};
  }
  const bool verifies =
      c.client_auth == ClientAuth::kVerifyClientCertIfGiven ||
      c.client_auth == ClientAuth::kRequireAndVerifyClientCert;
  if (verifies && c.client_ca_file.empty()) {
    return Error{w + ".client_ca_file: missing (client_auth_type " +
                 (c.client_auth == ClientAuth::kVerifyClientCertIfGiven
                      ? "VerifyClientCertIfGiven"
                      : "RequireAndVerifyClientCert") +
                 " verifies client certificates against it)"};
  }
  if (!c.client_ca_file.empty() && c.client_auth == ClientAuth::kNoClientCert) {
    return Error{w +
                 ".client_ca_file: given without a client_auth_type that "
                 "asks for client certificates"};
  }
  return std::optional<TlsConfig>(std::move(c));
}

Status ParseHttp(const YAML::Node& node, WebConfig& out) {
  const std::string w = "http_server_config";
  Status st = CheckMapKeys(node, w, {"headers", "http2"});
  if (!st.ok()) return st;
  if (!node || node.IsNull()) return Status::Ok();
  if (const YAML::Node h2 = node["http2"]; h2) {
    // libmicrohttpd serves HTTP/1.1 only; the key is accepted for
    // compatibility.
    auto b = Bool(h2, w + ".http2");
    if (!b.ok()) return b.error();
  }
  const YAML::Node headers = node["headers"];
  auto keys = MapKeys(headers, w + ".headers");
  if (!keys.ok()) return keys.error();
  for (const auto& name : *keys) {
    const std::string where = w + ".headers." + name;
    const AllowedHeader* allowed = nullptr;
    for (const auto& a : AllowedHeaders()) {
      if (IEquals(a.name, name)) allowed = &a;
    }
    if (allowed == nullptr) {
      return Error{where +
                   ": this header cannot be configured (allowed: "
                   "Strict-Transport-Security, X-Content-Type-Options, "
                   "X-Frame-Options, X-XSS-Protection, "
                   "Content-Security-Policy)"};
    }
    auto value = Text(headers[name], where);
    if (!value.ok()) return value.error();
    for (char ch : *value) {
      if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) {
        return Error{where + ": control character in the value"};
      }
    }
    if (!allowed->values.empty() &&
        std::find(allowed->values.begin(), allowed->values.end(), *value) ==
            allowed->values.end()) {
      std::string expected;
      for (auto v : allowed->values) {
        expected += (expected.empty() ? "" : " or ") + std::string(v);
      }
      return Error{where + ": expected " + expected + ", got '" + *value + "'"};
    }
    out.headers.emplace_back(std::string(allowed->name), *value);
  }
  return Status::Ok();
}

Status ParseUsers(const YAML::Node& node, WebConfig& out) {
  const std::string w = "basic_auth_users";
  auto keys = MapKeys(node, w);
  if (!keys.ok()) return keys.error();
  for (const auto& user : *keys) {
    const std::string where = w + "." + user;
    if (user.empty()) return Error{w + ": empty user name"};
    if (user.find(':') != std::string::npos) {
      // Basic auth splits user and password at the first colon.
      return Error{where + ": a user name cannot contain ':'"};
    }
    auto hash = Text(node[user], where);
    if (!hash.ok()) return hash.error();
    Status st = CheckBcryptHash(*hash);
    if (!st.ok()) return Error{where + ": " + st.error().message};
    out.users.emplace_back(user, *hash);
  }
  return Status::Ok();
}

}  // namespace

std::optional<CipherSuite> FindCipherSuite(std::string_view go_name) {
  for (const auto& c : kCiphers) {
    if (c.go == go_name) return c;
  }
  return std::nullopt;
}

Result<WebConfig> ParseWebConfig(const std::string& text,
                                 const std::string& base_dir) {
  // A second document (after "---") is refused, not silently ignored.
  auto doc = LoadOneDocument(text);
  if (!doc) return doc.error();
  YAML::Node root = *doc;
  WebConfig out;
  if (root.IsNull()) return out;
  if (!root.IsMap()) return Error{"top level must be a map"};
  Status st = CheckMapKeys(
      root, "",
      {"tls_server_config", "http_server_config", "basic_auth_users"});
  if (!st.ok()) {
    std::string m = st.error().message;
    // CheckMapKeys names keys as "<where>.<key>"; at the top there is no where.
    if (!m.empty() && m[0] == '.') m.erase(0, 1);
    return Error{m};
  }
  const YAML::Node& croot = root;
  auto tls = ParseTls(croot["tls_server_config"], base_dir);
  if (!tls.ok()) return tls.error();
  out.tls = std::move(tls).value();
  st = ParseHttp(croot["http_server_config"], out);
  if (!st.ok()) return st.error();
  st = ParseUsers(croot["basic_auth_users"], out);
  if (!st.ok()) return st.error();
  return out;
}

Result<WebConfig> LoadWebConfig(const std::string& path) {
  // A directory would read as empty and pass as "no settings"; a device or
  // a runaway file would be read without end.
  auto text = ReadBoundedFile(path, kConfigFileLimit);
  if (!text) return Error{text.error().ToString()};
  std::string dir;
  if (auto slash = path.rfind('/'); slash != std::string::npos) {
    dir = path.substr(0, slash == 0 ? 1 : slash);
  }
  auto c = ParseWebConfig(*text, dir);
  if (!c.ok()) return Error{path + ": " + c.error().message};
  return c;
}

}  // namespace rnic
