// A small reader of the Prometheus text exposition format (0.0.4), enough to
// compare served samples with their sources. Independent of the exporter's own
// serializer on purpose: the test must not share code with what it checks.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rnic::vmtest {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
  std::string raw;  // the line as served, for messages
};

// Parses every sample line; comment and empty lines are skipped. Returns
// nullopt (and a reason in *error) on the first malformed line.
[[nodiscard]] std::optional<std::vector<Sample>> ParseTextFormat(
    std::string_view text, std::string* error);

}  // namespace rnic::vmtest
