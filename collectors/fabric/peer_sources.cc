#include "collectors/fabric/peer_sources.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <set>

#include "collectors/common/bounded_file.h"
#include "collectors/common/yaml_map.h"

namespace rnic::fabric {

Result<std::vector<PeerSpec>> ParseFileSd(std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return Error{std::string("file_sd: not JSON or YAML: ") + e.what()};
  }
  std::vector<PeerSpec> out;
  if (!root || root.IsNull()) return out;  // an empty file: no peers
  if (!root.IsSequence()) return Error{"file_sd: must be a list of groups"};
  for (std::size_t i = 0; i < root.size(); ++i) {
    const std::string where = "file_sd[" + std::to_string(i) + "]";
    const YAML::Node g = root[i];
    if (auto s = CheckMapKeys(g, where, {"targets", "labels"}); !s)
      return s.error();
    std::map<std::string, std::string> labels;
    if (g["labels"] && !g["labels"].IsNull()) {
      auto keys = MapKeys(g["labels"], where + ".labels");
      if (!keys) return keys.error();
      for (const auto& k : *keys) {
        if (!g["labels"][k].IsScalar())
          return Error{where + ".labels." + k + ": must be a string"};
        labels[k] = g["labels"][k].Scalar();
      }
    }
    const YAML::Node t = g["targets"];
    if (!t || !t.IsSequence()) return Error{where + ".targets: must be a list"};
    for (std::size_t j = 0; j < t.size(); ++j) {
      const std::string tw = where + ".targets[" + std::to_string(j) + "]";
      if (!t[j].IsScalar()) return Error{tw + ": must be a string"};
      auto hp = SplitHostPort(t[j].Scalar());
      if (!hp) return Error{tw + ": " + hp.error().message};
      out.push_back(PeerSpec{hp->first, hp->second, labels});
    }
  }
  return out;
}

std::optional<FileStamp> StampOf(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileStamp{static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 +
                       st.st_mtim.tv_nsec,
                   static_cast<std::int64_t>(st.st_size), st.st_ino};
}

Resolver SystemResolver() {
  return [](const std::string& name) -> Result<std::vector<std::string>> {
    addrinfo hints{};
    hints.ai_family = AF_INET;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &res);
    // No such name is an answer: no peers (a headless Service without
    // ready pods). A failure to ask (EAI_AGAIN, ...) keeps the last list.
    if (rc == EAI_NONAME
#ifdef EAI_NODATA
        || rc == EAI_NODATA
#endif
    ) {
      return std::vector<std::string>{};
    }
    if (rc != 0) return Error{"resolve " + name + ": " + gai_strerror(rc)};
    std::set<std::string> ips;
    for (addrinfo* a = res; a != nullptr; a = a->ai_next) {
      char buf[INET_ADDRSTRLEN] = {};
      const auto* sin = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
      if (inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof buf)) ips.insert(buf);
    }
    freeaddrinfo(res);
    return std::vector<std::string>(ips.begin(), ips.end());
  };
}

PeerSources::PeerSources(const FabricConfig& cfg, Resolver resolver)
    : static_(cfg.peers),
      interval_(cfg.refresh),
      resolver_(std::move(resolver)) {
  for (const auto& f : cfg.file_sd) files_[f];
  if (!cfg.dns.empty()) {
    auto hp = SplitHostPort(cfg.dns);
    if (hp) {
      dns_ = hp->first;
      dns_port_ = hp->second;
    }
  }
  Merge();
}

bool PeerSources::Refresh(std::chrono::steady_clock::time_point now) {
  const auto before = peers_;
  for (auto& [path, st] : files_) {
    const std::string key = "file_sd " + path;
    auto stamp = StampOf(path);
    if (!stamp) {
      // A file that went away: its peers go too (a deliberate removal).
      if (st.stamp) st.peers.clear();
      st.stamp.reset();
      errors_[key] = "cannot stat " + path;
      log_.Log(spdlog::level::warn, key, "file_sd file unreadable",
               {{"path", path}});
      continue;
    }
    if (st.stamp == stamp) continue;
    // Bounded: /dev/zero or a runaway file is refused (one log line), not
    // read until memory runs out.
    auto text = ReadBoundedFile(path, kFileSdLimit);
    auto parsed =
        text ? ParseFileSd(*text)
             : Result<std::vector<PeerSpec>>(Error{text.error().ToString()});
    if (!parsed) {
      errors_[key] = parsed.error().message;
      log_.Log(spdlog::level::warn, key, "file_sd file refused",
               {{"path", path}, {"err", parsed.error().message}});
      st.stamp = stamp;  // keep the last good peers until it changes again
      continue;
    }
    st.stamp = stamp;
    st.peers = std::move(*parsed);
    errors_.erase(key);
    log_.Clear(key);
  }
  if (!dns_.empty() && (!last_dns_ || now - *last_dns_ >= interval_)) {
    last_dns_ = now;
    auto ips = resolver_(dns_);
    if (!ips) {
      errors_["dns"] = ips.error().message;
      log_.Log(spdlog::level::warn, "dns", "peer DNS name did not resolve",
               {{"name", dns_}, {"err", ips.error().message}});
    } else {
      errors_.erase("dns");
      log_.Clear("dns");
      dns_peers_.clear();
      for (const auto& ip : *ips) dns_peers_.push_back({ip, dns_port_, {}});
    }
  }
  Merge();
  return peers_ != before;
}

void PeerSources::Merge() {
  std::vector<PeerSpec> out;
  std::set<std::string> seen;
  auto add = [&](const std::vector<PeerSpec>& list) {
    for (const auto& p : list) {
      if (seen.insert(p.host).second) out.push_back(p);
    }
  };
  add(static_);
  for (const auto& [path, st] : files_) add(st.peers);
  add(dns_peers_);
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.host < b.host; });
  peers_ = std::move(out);
}

}  // namespace rnic::fabric
