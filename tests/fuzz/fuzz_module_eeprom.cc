// Module EEPROM decoding (SFF-8636, CMIS, SFF-8472): the input is the lower
// page (SFF-8472: A0h) followed by the upper pages PagesToRead() names, the
// CMIS bank pages BankPagesToRead() then names, then
// A2h when WantsA2h(), 128 bytes each, in that order (a short input leaves
// the last pages missing, which Decode() must refuse cleanly). Seeds:
// tests/fixtures/ethtool/eeprom/<module>/ laid end to end.
#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "collectors/ethtool/module_eeprom.h"

namespace {
double g_sink;
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data,
                                      std::size_t size) {
  using namespace rnic::optics;
  if (size < 128) return 0;
  ModulePages pages;
  std::copy(data, data + 128, pages.lower.begin());
  std::size_t off = 128;
  auto spec = Identify(pages.lower);
  if (spec.ok()) {
    for (const PageId& id : PagesToRead(*spec, pages.lower)) {
      if (size - off < 128) break;
      std::copy(data + off, data + off + 128, pages.upper[id].begin());
      off += 128;
    }
    for (const PageId& id : BankPagesToRead(*spec, pages)) {
      if (size - off < 128) break;
      std::copy(data + off, data + off + 128, pages.upper[id].begin());
      off += 128;
    }
    if (WantsA2h(*spec, pages.lower) && size - off >= 128) {
      pages.a2h.emplace();
      std::copy(data + off, data + off + 128, pages.a2h->begin());
    }
  }
  auto d = Decode(pages);
  if (d.ok()) {
    g_sink += d->temperature_celsius + d->supply_voltage_volts +
              static_cast<double>(d->lanes.size() + d->vendor.size());
    for (const Lane& l : d->lanes) g_sink += l.rx_power_watts.value_or(0);
    if (d->thresholds) g_sink += d->thresholds->rx_power.low_alarm;
  }
  return 0;
}
