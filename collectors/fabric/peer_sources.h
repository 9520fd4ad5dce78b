// Where the fabric probe's peers come from: the static list of the config,
// Prometheus file_sd files (re-read when their mtime, size or inode change)
// and a DNS name whose A records are the peers (re-resolved every refresh
// interval; a Kubernetes headless Service). A peer is a host: its
// management address, where its exporter answers the address exchange.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/log_once.h"
#include "collectors/common/result.h"
#include "collectors/fabric/fabric_config.h"

namespace rnic::fabric {

// A file_sd document (JSON or YAML): a list of {targets: [...], labels:
// {...}}. Targets are "host" or "host:port" (the port of the peer's
// exporter). Errors name the entry.
[[nodiscard]] Result<std::vector<PeerSpec>> ParseFileSd(std::string_view text);

// What tells a changed file from an unchanged one without reading it.
struct FileStamp {
  std::int64_t mtime_ns = 0;
  std::int64_t size = 0;
  ino_t inode = 0;
  bool operator==(const FileStamp&) const = default;
};
[[nodiscard]] std::optional<FileStamp> StampOf(const std::string& path);

// Name -> IPv4 addresses (A records), sorted. Injected in tests.
using Resolver =
    std::function<Result<std::vector<std::string>>(const std::string& name)>;
[[nodiscard]] Resolver SystemResolver();

class PeerSources {
 public:
  PeerSources(const FabricConfig& cfg, Resolver resolver);

  // Re-reads what changed (files by stamp; DNS when `now` is a refresh
  // interval past the last lookup). Returns true when the peer list changed.
  // A source that fails keeps its last good list (a half-written file or a
  // DNS hiccup must not drop every peer).
  bool Refresh(std::chrono::steady_clock::time_point now);
  // Merged and deduplicated by host (static first, then files, then DNS:
  // the first source naming a host gives its labels).
  [[nodiscard]] const std::vector<PeerSpec>& peers() const { return peers_; }
  // The last error of each failing source ("file_sd <path>", "dns"), empty
  // when all are fine.
  [[nodiscard]] const std::map<std::string, std::string>& errors() const {
    return errors_;
  }

 private:
  struct FileState {
    std::optional<FileStamp> stamp;
    std::vector<PeerSpec> peers;
  };
  void Merge();

  std::vector<PeerSpec> static_;
  std::map<std::string, FileState> files_;
  std::string dns_;
  int dns_port_ = 0;
  std::vector<PeerSpec> dns_peers_;
  std::chrono::milliseconds interval_;
  std::optional<std::chrono::steady_clock::time_point> last_dns_;
  Resolver resolver_;
  std::vector<PeerSpec> peers_;
  std::map<std::string, std::string> errors_;
  LogOnce log_{"fabric"};
};

}  // namespace rnic::fabric
