#include "collectors/collector_spec.h"

namespace rnic {

const std::string& CollectorArgs::Option(const std::string& name) const {
  static const std::string kEmpty;
  auto it = options.find(name);
  return it == options.end() ? kEmpty : it->second;
}

}  // namespace rnic
