#include "exporter/exposition.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>

#include "collectors/metrics/family.h"
#include "collectors/metrics/label_set.h"
#include "exporter/http_header.h"

namespace rnic {
namespace {

void AppendLabels(const std::vector<prometheus::ClientMetric::Label>& labels,
                  std::string_view extra_name, std::string_view extra_value,
                  std::string& out) {
  if (labels.empty() && extra_name.empty()) return;
  out += '{';
  bool first = true;
  for (const auto& l : labels) {
    if (!first) out += ',';
    first = false;
    out += l.name;
    out += "=\"";
    AppendEscaped(l.value, true, out);
    out += '"';
  }
  if (!extra_name.empty()) {
    if (!first) out += ',';
    out += extra_name;
    out += "=\"";
    out += extra_value;
    out += '"';
  }
  out += '}';
}

void AppendSample(std::string_view name, std::string_view suffix,
                  const prometheus::ClientMetric& m,
                  std::string_view extra_name, std::string_view extra_value,
                  double value, std::string& out) {
  out += name;
  out += suffix;
  AppendLabels(m.label, extra_name, extra_value, out);
  out += ' ';
  AppendValue(value, out);
  out += '\n';
}

void AppendClientSamples(prometheus::MetricType type,
                         const std::vector<prometheus::ClientMetric>& metrics,
                         std::string_view fname, bool om, std::string& out) {
  for (const auto& m : metrics) {
    switch (type) {
      case prometheus::MetricType::Counter:
        AppendSample(fname, om ? "_total" : "", m, {}, {}, m.counter.value,
                     out);
        break;
      case prometheus::MetricType::Gauge:
        AppendSample(fname, "", m, {}, {}, m.gauge.value, out);
        break;
      case prometheus::MetricType::Untyped:
        AppendSample(fname, "", m, {}, {}, m.untyped.value, out);
        break;
      case prometheus::MetricType::Histogram: {
        for (const auto& b : m.histogram.bucket) {
          std::string le;
          AppendValue(b.upper_bound, le);
          if (om && le.find_first_of(".eIN") == std::string::npos) le += ".0";
          AppendSample(fname, "_bucket", m, "le", le,
                       static_cast<double>(b.cumulative_count), out);
        }
        AppendSample(fname, "_sum", m, {}, {}, m.histogram.sample_sum, out);
        AppendSample(fname, "_count", m, {}, {},
                     static_cast<double>(m.histogram.sample_count), out);
        break;
      }
      case prometheus::MetricType::Summary: {
        for (const auto& q : m.summary.quantile) {
          std::string qs;
          AppendValue(q.quantile, qs);
          AppendSample(fname, "", m, "quantile", qs, q.value, out);
        }
        AppendSample(fname, "_sum", m, {}, {}, m.summary.sample_sum, out);
        AppendSample(fname, "_count", m, {}, {},
                     static_cast<double>(m.summary.sample_count), out);
        break;
      }
      default:
        break;
    }
  }
}

}  // namespace

ExpositionFormat NegotiateFormat(std::string_view accept) {
  double best_q = -1;
  ExpositionFormat best = ExpositionFormat::kText004;
  ForEachHeaderItem(accept, [&](const HeaderItem& item) {
    if (item.q <= 0) return;
    ExpositionFormat f;
    if (IEquals(item.value, "application/openmetrics-text")) {
      if (!item.version.empty() && item.version != "1.0.0" &&
          item.version != "0.0.1") {
        return;
      }
      f = ExpositionFormat::kOpenMetrics100;
    } else if (IEquals(item.value, "text/plain") || item.value == "*/*" ||
               IEquals(item.value, "text/*")) {
      if (!item.version.empty() && item.version != "0.0.4") return;
      f = ExpositionFormat::kText004;
    } else {
      return;
    }
    if (item.q > best_q) {
      best_q = item.q;
      best = f;
    }
  });
  return best;
}

std::string_view ContentType(ExpositionFormat format) {
  return format == ExpositionFormat::kOpenMetrics100
             ? "application/openmetrics-text; version=1.0.0; charset=utf-8"
             : "text/plain; version=0.0.4; charset=utf-8";
}

void AppendValue(double v, std::string& out) {
  if (std::isnan(v)) {
    out += "NaN";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "+Inf" : "-Inf";
    return;
  }
  char buf[32];
  // Integral values print as integers, so counters keep every digit up to
  // 2^53 (and beyond, as far as the double holds them).
  // Each cast only where it is defined: int64 below 2^63 in magnitude,
  // uint64 for [2^63, 1e19) (64-bit counters near their wrap).
  if (v == std::trunc(v) && v > -9.2e18 && v < 1e19) {
    const auto r = v < 9.2e18 ? std::to_chars(buf, buf + sizeof buf,
                                              static_cast<std::int64_t>(v))
                              : std::to_chars(buf, buf + sizeof buf,
                                              static_cast<std::uint64_t>(v));
    out.append(buf, r.ptr);
    return;
  }
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip
  out.append(buf, r.ptr);
}

namespace {

void AppendHeader(const FamilyDesc& d, std::string_view fname, bool om,
                  std::string& out) {
  out += "# HELP ";
  out += fname;
  out += ' ';
  AppendEscaped(d.help, om, out);
  out += "\n# TYPE ";
  out += fname;
  out += ' ';
  out += (om && d.type == prometheus::MetricType::Untyped) ? "unknown"
                                                           : TypeName(d.type);
  out += '\n';
}

}  // namespace

void Serialize(const MetricSet& set, ExpositionFormat format,
               std::string& out) {
  const bool om = format == ExpositionFormat::kOpenMetrics100;
  for (const MetricSet::Family& f : set.raw()) {
    if (f.size() == 0) continue;
    const FamilyDesc& d = *f.desc;
    std::string_view fname = d.name;
    const bool counter = d.type == prometheus::MetricType::Counter;
    if (om && counter && fname.ends_with("_total") && fname.size() > 6) {
      fname.remove_suffix(6);
    }
    AppendHeader(d, fname, om, out);
    // The hot path: name, pre-rendered labels, value.
    const std::string_view suffix = om && counter ? "_total" : "";
    for (const Sample& s : f.samples) {
      out += fname;
      out += suffix;
      const std::string& text = s.labels->text();
      if (!text.empty()) {
        out += '{';
        out += text;
        out += '}';
      }
      out += ' ';
      AppendValue(s.value, out);
      out += '\n';
    }
    if (!f.client.empty()) {
      AppendClientSamples(d.type, f.client, fname, om, out);
    }
  }
  if (om) out += "# EOF\n";
}

void Serialize(const std::vector<prometheus::MetricFamily>& families,
               ExpositionFormat format, std::string& out) {
  MetricSet set;
  for (auto f : families) {
    const FamilyDesc& d = InternFamily(f.name, f.type, "", f.help);
    set.AddFamily(d, std::move(f));
  }
  Serialize(set, format, out);
}

}  // namespace rnic
