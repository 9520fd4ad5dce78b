#include "collectors/collector_spec.h"

namespace rnic {

Result<OptionValues> CollectorSpec::ParseOptions(
    const std::map<std::string, std::string>& given) const {
  return OptionValues::Parse(name, options, given);
}

}  // namespace rnic
