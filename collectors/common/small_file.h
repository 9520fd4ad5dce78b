// The one reader of small files: sysfs attributes, procfs entries, a PMU's
// format strings. The kernel renders such a file at open or read time, so
// it is read whole, never mapped or streamed. A file is named as the kernel
// takes it: a directory fd and a name relative to it (AT_FDCWD: a path).
// Files read at every scrape are held open instead (cached_fd.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "collectors/common/cached_fd.h"
#include "collectors/common/result.h"

namespace rnic {

// One read() of `name` into buf (a sysfs attribute comes whole in one),
// retried on EINTR: bytes read, or -errno of the open or the read. For hot
// loops that parse in place without allocating.
[[nodiscard]] long ReadSmallFile(int dirfd, const char* name, char* buf,
                                 std::size_t cap);

// The whole file as text, trailing newlines, blanks and NULs removed.
// Errors carry errno and name the file: "open <name>", "read <name>".
[[nodiscard]] Result<std::string> ReadSmallFile(int dirfd,
                                                const std::string& name);
[[nodiscard]] Result<std::string> ReadSmallFile(const std::string& path);
// The same through a descriptor held open across scrapes: one page at most
// (a sysfs attribute's size), "read <path>" on error.
[[nodiscard]] Result<std::string> ReadSmallFile(CachedFd& held,
                                                const std::string& path);

// `text` without trailing '\n', '\r', ' ', '\t' and '\0'.
[[nodiscard]] std::string_view TrimTrailing(std::string_view text);

}  // namespace rnic
