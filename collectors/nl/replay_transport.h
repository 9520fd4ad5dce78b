// NetlinkTransport that answers from recorded kernel replies: one file of
// raw reply bytes per request, named after Request::Key() (see
// tests/netlink_recorder). Tests may also add hand-built replies.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "collectors/common/result.h"
#include "collectors/nl/transport.h"

namespace rnic::nl {

class ReplayTransport final : public NetlinkTransport {
 public:
  // Loads every "<key>.bin" file of `dir`.
  [[nodiscard]] static Result<ReplayTransport> FromDirectory(
      const std::string& dir);

  // Sets the reply to the request named `key`.
  void Set(const std::string& key, std::vector<std::uint8_t> bytes);
  // A request without a recorded reply gets this kernel error (default
  // ENOENT, which no RDMA netlink call returns: a test gap shows up).
  void SetMissingErrno(int err) { missing_errno_ = err; }
  void Remove(const std::string& key) { replies_.erase(key); }

  [[nodiscard]] Status Exchange(const Request& req,
                                const MessageCallback& on_msg) override;

  // Requests served so far, by key (tests check what a scrape asked for).
  [[nodiscard]] const std::map<std::string, int>& calls() const {
    return calls_;
  }
  [[nodiscard]] const std::map<std::string, std::vector<std::uint8_t>>&
  replies() const {
    return replies_;
  }

 private:
  std::map<std::string, std::vector<std::uint8_t>> replies_;
  std::map<std::string, int> calls_;
  int missing_errno_ = ENOENT;
};

}  // namespace rnic::nl
