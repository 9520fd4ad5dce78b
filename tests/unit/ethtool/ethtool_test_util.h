// Fixture access for the ethtool collector's tests
// (tests/fixtures/ethtool, written by make_fixtures.py).
#pragma once

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "collectors/ethtool/module_eeprom.h"

namespace rnic::ethtool::testing {

inline const std::string kEthtoolFixtures = RNIC_FIXTURES_DIR "/ethtool";

inline std::vector<std::uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string PageFile(const std::string& module,
                            const optics::PageId& id) {
  char name[32];
  std::snprintf(name, sizeof(name), "page%d_%02xh.bin", id.bank, id.page);
  return kEthtoolFixtures + "/eeprom/" + module + "/" + name;
}

// The pages of a fixture module that PagesToRead(), BankPagesToRead() and
// WantsA2h() name.
inline optics::ModulePages LoadModule(const std::string& module) {
  optics::ModulePages p;
  const auto lower =
      ReadBytes(kEthtoolFixtures + "/eeprom/" + module + "/lower.bin");
  std::copy(lower.begin(), lower.end(), p.lower.begin());
  auto spec = optics::Identify(p.lower);
  if (!spec) return p;
  auto load = [&](const optics::PageId& id) {
    const auto bytes = ReadBytes(PageFile(module, id));
    if (bytes.size() == 128) {
      std::copy(bytes.begin(), bytes.end(), p.upper[id].begin());
    }
  };
  for (const auto& id : optics::PagesToRead(*spec, p.lower)) load(id);
  for (const auto& id : optics::BankPagesToRead(*spec, p)) load(id);
  if (optics::WantsA2h(*spec, p.lower)) {
    const auto a2h =
        ReadBytes(kEthtoolFixtures + "/eeprom/" + module + "/a2h.bin");
    if (a2h.size() == 128) {
      p.a2h.emplace();
      std::copy(a2h.begin(), a2h.end(), p.a2h->begin());
    }
  }
  return p;
}

}  // namespace rnic::ethtool::testing
