#include "collectors/perf/pmu_catalog.h"

#include <charconv>
#include <cstdlib>

#include "collectors/common/dir_fd.h"
#include "collectors/common/range_list.h"
#include "collectors/common/small_file.h"

namespace rnic {
namespace {

// Names in `dir`; none when it cannot be listed (a PMU without events).
std::vector<std::string> NamesIn(const std::string& dir) {
  auto names = ListDirectory(dir);
  return names.ok() ? std::move(names).value() : std::vector<std::string>();
}

bool ParseU64(std::string_view s, std::uint64_t& v) {
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

// Scatters `value` into the format's bit ranges, low bits first.
Status Place(const PmuFormat& f, std::uint64_t value, std::uint64_t& word,
             const std::string& term) {
  int width = 0;
  for (const auto& [lo, hi] : f.bits) {
    for (int b = lo; b <= hi; ++b) {
      if (value & (1ULL << width)) word |= 1ULL << b;
      ++width;
      if (width == 64) break;
    }
  }
  if (width < 64 && (value >> width) != 0) {
    return Error{"value of '" + term + "' does not fit its " +
                 std::to_string(width) + " bits"};
  }
  return Status::Ok();
}

}  // namespace

Result<PmuFormat> ParsePmuFormat(std::string_view text) {
  text = Trim(text);
  auto colon = text.find(':');
  if (colon == std::string_view::npos) return Error{"format without ':'"};
  std::string_view word = text.substr(0, colon);
  PmuFormat f;
  if (word == "config") {
    f.config_word = 0;
  } else if (word == "config1") {
    f.config_word = 1;
  } else if (word == "config2") {
    f.config_word = 2;
  } else {
    return Error{"unknown config word '" + std::string(word) + "'"};
  }
  auto bits = ParseRangeList(text.substr(colon + 1));
  if (!bits.ok()) return bits.error();
  for (const auto& [lo, hi] : *bits) {
    if (hi > 63) return Error{"bit " + std::to_string(hi) + " beyond 63"};
  }
  f.bits = std::move(bits).value();
  if (f.bits.empty()) return Error{"format without bits"};
  return f;
}

Result<std::vector<std::string>> ListPmus(const std::string& sysfs) {
  return ListDirectory(sysfs + "/bus/event_source/devices");
}

Result<Pmu> LoadPmu(const std::string& sysfs, const std::string& name) {
  const std::string dir = sysfs + "/bus/event_source/devices/" + name;
  Pmu pmu;
  pmu.name = name;
  auto type = ReadSmallFile(dir + "/type");
  if (!type.ok())
    return Error{"PMU " + name + " not found (" + type.error().ToString() +
                 ")"};
  std::uint64_t t = 0;
  if (!ParseU64(*type, t))
    return Error{"PMU " + name + ": bad type '" + *type + "'"};
  pmu.type = static_cast<std::uint32_t>(t);
  if (auto mask = ReadSmallFile(dir + "/cpumask"); mask.ok()) {
    auto cpus = ParseCpuList(*mask);
    if (cpus.ok()) pmu.cpus = std::move(cpus).value();
  }
  for (const auto& f : NamesIn(dir + "/format")) {
    auto text = ReadSmallFile(dir + "/format/" + f);
    if (!text.ok()) continue;
    auto fmt = ParsePmuFormat(*text);
    if (fmt.ok()) pmu.formats[f] = std::move(fmt).value();
  }
  for (const auto& e : NamesIn(dir + "/events")) {
    auto dot = e.rfind('.');
    if (dot != std::string::npos)
      continue;  // .scale / .unit / .snapshot / .per-pkg
    auto text = ReadSmallFile(dir + "/events/" + e);
    if (!text.ok()) continue;
    PmuEvent ev;
    ev.terms = *text;
    if (auto s = ReadSmallFile(dir + "/events/" + e + ".scale"); s.ok()) {
      char* end = nullptr;
      double v = std::strtod(s->c_str(), &end);
      if (end != s->c_str()) ev.scale = v;
    }
    if (auto u = ReadSmallFile(dir + "/events/" + e + ".unit"); u.ok())
      ev.unit = *u;
    pmu.events[e] = std::move(ev);
  }
  return pmu;
}

Result<EncodedEvent> EncodeEvent(const Pmu& pmu, std::string_view spec) {
  EncodedEvent out;
  std::string terms(Trim(spec));
  if (auto it = pmu.events.find(terms); it != pmu.events.end()) {
    out.scale = it->second.scale;
    out.unit = it->second.unit;
    terms = it->second.terms;
  }
  std::string_view rest = terms;
  if (rest.empty()) return Error{"empty event"};
  while (!rest.empty()) {
    auto comma = rest.find(',');
    std::string_view term = Trim(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view()
                                           : rest.substr(comma + 1);
    if (term.empty()) continue;
    auto eq = term.find('=');
    std::string key(Trim(term.substr(0, eq)));
    std::uint64_t value = 1;
    if (eq != std::string_view::npos &&
        !ParseU64(Trim(term.substr(eq + 1)), value)) {
      return Error{"bad value in term '" + std::string(term) + "'"};
    }
    if (key == "config" || key == "config1" || key == "config2") {
      out.config[key == "config" ? 0 : key[6] - '0'] |= value;
      continue;
    }
    auto f = pmu.formats.find(key);
    if (f == pmu.formats.end()) {
      return Error{"PMU " + pmu.name + " has no format or event '" + key + "'"};
    }
    Status st = Place(f->second, value, out.config[f->second.config_word], key);
    if (!st.ok()) return st.error();
  }
  return out;
}

}  // namespace rnic
