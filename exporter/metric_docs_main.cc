// rnic_metric_docs: prints the metrics reference table (markdown) from the
// family declarations (collectors/model/family.h) of the exporter and every
// collector. tests/docs keeps README.md equal to it; the dashboard lint reads
// `--names`.
#include <iostream>

#include "collectors/collector_spec.h"
#include "exporter/self_metrics.h"

namespace {

void Row(const std::string& collector, const rnic::FamilyDesc& d) {
  std::string labels =
      d.labels.empty() ? "" : "`" + std::string(d.labels) + "`";
  std::cout << "| `" << d.name << "` | " << rnic::TypeName(d.type) << " | "
            << labels << " | " << collector << " | " << d.help << " |\n";
}

}  // namespace

void Collectors() {
  std::cout << "| collector | default | what it reads | options "
               "|\n|---|---|---|---|\n";
  for (const auto& spec : rnic::AllCollectors()) {
    std::string opts;
    for (const auto& o : spec.options) {
      if (!opts.empty()) opts += "<br>";
      opts += "`--collector." + spec.name + "." + o.name + "` (" +
              rnic::TypeText(o);
      if (!o.default_value.empty())
        opts += ", default `" + o.default_value + "`";
      opts += ")";
      opts += ": " + o.help;
    }
    std::cout << "| `" << spec.name << "` | "
              << (spec.default_enabled ? "enabled" : "disabled") << " | "
              << spec.help << " | " << opts << " |\n";
  }
}

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "--collectors") {
    Collectors();
    return 0;
  }
  if (argc > 1 && std::string(argv[1]) == "--names") {
    // One declared name per line (placeholders kept), for the lints.
    for (const auto* d : rnic::ExporterFamilies()) std::cout << d->name << "\n";
    for (const auto& spec : rnic::AllCollectors()) {
      for (const auto* d : spec.families) std::cout << d->name << "\n";
    }
    return 0;
  }
  std::cout << "| metric | type | labels | collector | meaning |\n"
               "|---|---|---|---|---|\n";
  for (const auto* d : rnic::ExporterFamilies()) Row("(exporter)", *d);
  for (const auto& spec : rnic::AllCollectors()) {
    for (const auto* d : spec.families) Row(spec.name, *d);
  }
  return 0;
}
