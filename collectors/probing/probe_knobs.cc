#include "collectors/probing/probe_knobs.h"

#include <algorithm>
#include <string>

namespace rnic::probe::knobs {

using std::chrono::milliseconds;

const config::KeyDef<bool>& Enabled() {
  static const config::KeyDef<bool> k{
      "enabled", config::Bool(),
      "`false` keeps the collector but starts no probe"};
  return k;
}

const config::KeyDef<milliseconds>& Interval() {
  static const config::KeyDef<milliseconds> k{
      "interval", config::Duration(milliseconds(10), std::chrono::hours(1)),
      "mean time between round starts (each gap drawn from 0.5-1.5 times it)"};
  return k;
}

const config::KeyDef<int>& Iterations() {
  static const config::KeyDef<int> k{
      "iterations", config::Int<int>(1, 10000),
      "timed iterations of each operation and size per round"};
  return k;
}

const config::KeyDef<milliseconds>& Timeout() {
  static const config::KeyDef<milliseconds> k{
      "timeout", config::Duration(milliseconds(1), std::chrono::minutes(1)),
      "per-operation completion timeout"};
  return k;
}

const config::KeyDef<double>& CpuBudgetPercent() {
  static const config::KeyDef<double> k{
      "cpu_budget_percent", config::Number(0, 100),
      "average share of one core the probe may use; rounds are spaced out "
      "to stay within it; `0`: no limit"};
  return k;
}

config::KeyDef<std::vector<std::uint32_t>> Sizes(std::uint32_t max_message) {
  auto size = config::Convert<std::uint32_t, std::uint64_t>(
      config::Size(1, max_message),
      [](std::uint64_t v) -> Result<std::uint32_t> {
        return static_cast<std::uint32_t>(v);
      },
      [](const std::uint32_t& v) { return config::FormatSize(v); });
  return {"sizes", config::List(size, /*non_empty=*/true),
          "message sizes in bytes (`4KiB` style accepted)"};
}

config::KeyDef<std::vector<Operation>> Operations(
    const std::vector<Operation>& supported) {
  std::string names, range;
  for (auto op : supported) {
    names += (names.empty() ? "" : ", ") + std::string(OperationName(op));
    range +=
        (range.empty() ? "`" : ", `") + std::string(OperationName(op)) + "`";
  }
  config::Value<Operation> item;
  item.doc = {"operation", range, {}, false};
  item.parse = [supported, names](
                   const YAML::Node& n,
                   const std::string& where) -> Result<Operation> {
    auto t = yaml::Text(n, where);
    if (!t) return t.error();
    auto op = ParseOperation(*t);
    if (!op ||
        std::find(supported.begin(), supported.end(), *op) == supported.end()) {
      return yaml::KeyError(where,
                            "unknown operation '" + *t + "' (" + names + ")");
    }
    return *op;
  };
  item.show = [](const Operation& op) {
    return std::string(OperationName(op));
  };
  auto list = config::List(item, /*non_empty=*/true);
  auto show = list.show;
  // A repeated operation would be probed twice into the same histogram.
  auto unique = config::Convert<std::vector<Operation>, std::vector<Operation>>(
      list,
      [](std::vector<Operation> ops) -> Result<std::vector<Operation>> {
        std::vector<Operation> out;
        for (auto op : ops) {
          if (std::find(out.begin(), out.end(), op) == out.end()) {
            out.push_back(op);
          }
        }
        return out;
      },
      show);
  const bool atomics =
      std::any_of(supported.begin(), supported.end(), IsAtomic);
  return {"operations", unique,
          atomics ? "operations probed; `cmp_swap` and `fetch_add` name the "
                    "atomics too"
                  : "operations probed"};
}

}  // namespace rnic::probe::knobs
