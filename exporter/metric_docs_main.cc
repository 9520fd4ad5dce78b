// rnic_metric_docs: prints the metrics reference table (markdown) from the
// collectors' MetricDoc lists. tests/docs keeps README.md equal to it.
#include <iostream>

#include "collectors/collector_spec.h"
#include "exporter/self_metrics.h"

namespace {

void Row(const std::string& collector, const rnic::MetricDoc& d) {
  std::string labels = d.labels.empty() ? "" : "`" + d.labels + "`";
  std::string name = d.name;
  std::cout << "| `" << name << "` | " << d.type << " | " << labels << " | " << collector
            << " | " << d.help << " |\n";
}

}  // namespace

void Collectors() {
  std::cout << "| collector | default | what it reads | options |\n|---|---|---|---|\n";
  for (const auto& spec : rnic::AllCollectors()) {
    std::string opts;
    for (const auto& o : spec.options) {
      if (!opts.empty()) opts += "<br>";
      opts += "`--collector." + spec.name + "." + o.name + "`";
      if (!o.default_value.empty()) opts += " (default `" + o.default_value + "`)";
      opts += ": " + o.help;
    }
    std::cout << "| `" << spec.name << "` | " << (spec.default_enabled ? "enabled" : "disabled")
              << " | " << spec.help << " | " << opts << " |\n";
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--collectors") {
    Collectors();
    return 0;
  }
  std::cout << "| metric | type | labels | collector | meaning |\n"
               "|---|---|---|---|---|\n";
  for (const auto& d : rnic::ExporterMetricDocs()) Row("(exporter)", d);
  for (const auto& spec : rnic::AllCollectors()) {
    for (const auto& d : spec.metrics) Row(spec.name, d);
  }
  return 0;
}
