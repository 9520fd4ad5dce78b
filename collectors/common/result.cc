#include "collectors/common/result.h"

#include <cstring>

namespace rnic {

std::string Error::ToString() const {
  if (errno_value == 0) return message;
  return message + ": " + std::strerror(errno_value);
}

}  // namespace rnic
