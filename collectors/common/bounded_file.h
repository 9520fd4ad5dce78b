// Files an operator names (the config and web config, file_sd lists,
// password and certificate files): opened only when they are regular
// files, and read up to a size limit, so a path naming /dev/zero, a FIFO,
// a directory or a runaway log is refused with a message instead of
// blocking, spinning or exhausting memory.
#pragma once

#include <cstddef>
#include <string>

#include "collectors/common/result.h"

namespace rnic {

// Limits by kind of file: far above any real one, far below harm. A YAML
// config costs about a hundred times its size in nodes once parsed.
inline constexpr std::size_t kConfigFileLimit = 1 << 20;   // YAML configs
inline constexpr std::size_t kFileSdLimit = 4 << 20;       // peer lists
inline constexpr std::size_t kSecretFileLimit = 64 << 10;  // passwords
inline constexpr std::size_t kPemFileLimit = 1 << 20;      // certificates

// The whole file, at most `limit` bytes. Errors name the path: "<path>:
// not a regular file", "<path>: larger than <limit> bytes", "<path>:
// cannot be read" (with errno).
[[nodiscard]] Result<std::string> ReadBoundedFile(const std::string& path,
                                                  std::size_t limit);

// The same checks without reading, for files a library opens itself
// (OpenSSL, libcurl): the file exists, is regular and within `limit`.
[[nodiscard]] Status CheckBoundedFile(const std::string& path,
                                      std::size_t limit);

}  // namespace rnic
