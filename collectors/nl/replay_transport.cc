#include "collectors/nl/replay_transport.h"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace rnic::nl {

Result<ReplayTransport> ReplayTransport::FromDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return Error{"open " + dir, ec.value()};
  ReplayTransport t;
  for (const auto& entry : it) {
    if (!entry.is_regular_file() || entry.path().extension() != ".bin") {
      continue;
    }
    std::ifstream in(entry.path(), std::ios::binary);
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    t.Set(entry.path().stem().string(), std::move(bytes));
  }
  return t;
}

void ReplayTransport::Set(const std::string& key,
                          std::vector<std::uint8_t> bytes) {
  replies_[key] = std::move(bytes);
}

Status ReplayTransport::Exchange(const Request& req,
                                 const MessageCallback& on_msg) {
  const std::string key = req.Key();
  ++calls_[key];
  auto it = replies_.find(key);
  if (it == replies_.end()) {
    return Error{"replay: no reply recorded for " + key, missing_errno_};
  }
  // std::vector's storage is suitably aligned for nlmsghdr.
  bool finished = false;
  Status st = WalkMessages(it->second, 0, on_msg, &finished, EndOf(req));
  if (!st.ok()) {
    return Error{key + ": " + st.error().message, st.error().errno_value};
  }
  if (!finished) {
    return Error{key + ": recorded answer ends without DONE or ack", EBADMSG};
  }
  return Status::Ok();
}

}  // namespace rnic::nl
