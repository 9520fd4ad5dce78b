// Minimal HTTP/1.0 GET against 127.0.0.1, so the check needs nothing but libc
// inside the guest (busybox's static wget crashes there).
#pragma once

#include <optional>
#include <string>

namespace rnic::vmtest {

// Body of a 200 answer to GET `path` on 127.0.0.1:`port`; nullopt with a
// reason in *error otherwise.
[[nodiscard]] std::optional<std::string> HttpGetLocal(int port,
                                                      const std::string& path,
                                                      std::string* error);

}  // namespace rnic::vmtest
