#include "collectors/kmsg/kmsg_parser.h"

#include <cctype>
#include <charconv>
#include <cstdio>

#include "collectors/host/sysfs_parse.h"

namespace rnic::kmsg {
namespace {

bool Hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

// Parses "0x<hex>" at the start of `s`.
std::optional<std::uint32_t> HexNumber(std::string_view s) {
  if (s.size() < 3 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X')) {
    return std::nullopt;
  }
  std::uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data() + 2, s.data() + s.size(), v, 16);
  if (ec != std::errc() || p == s.data() + 2) return std::nullopt;
  return v;
}

}  // namespace

KmsgRecord ParseKmsgRecord(std::string_view record) {
  KmsgRecord r;
  std::string_view first = record;
  std::string_view rest;
  if (auto nl = record.find('\n'); nl != std::string_view::npos) {
    first = record.substr(0, nl);
    rest = record.substr(nl + 1);
  }
  r.message = first;
  // Header: digits ',' digits ',' digits ',' flags [',' ...] ';'
  const auto semi = first.find(';');
  if (semi != std::string_view::npos) {
    std::string_view hdr = first.substr(0, semi);
    int prio = 0;
    auto [p, ec] = std::from_chars(hdr.data(), hdr.data() + hdr.size(), prio);
    if (ec == std::errc() && p < hdr.data() + hdr.size() && *p == ',') {
      std::uint64_t seq = 0;
      auto [p2, ec2] = std::from_chars(p + 1, hdr.data() + hdr.size(), seq);
      if (ec2 == std::errc() && p2 < hdr.data() + hdr.size() && *p2 == ',') {
        r.priority = prio;
        r.seq = seq;
        r.has_seq = true;
        r.message = first.substr(semi + 1);
      }
    }
  }
  while (!rest.empty() && rest.front() == ' ') {
    auto nl = rest.find('\n');
    std::string_view line = rest.substr(
        1, nl == std::string_view::npos ? std::string_view::npos : nl - 1);
    if (line.substr(0, 7) == "DEVICE=") r.device = line.substr(7);
    if (nl == std::string_view::npos) break;
    rest = rest.substr(nl + 1);
  }
  return r;
}

std::string FindPciAddress(std::string_view text) {
  for (std::size_t i = 0; i + 12 <= text.size(); ++i) {
    if ((i == 0 || !Hex(text[i - 1])) &&
        sysfs::IsPciAddress(text.substr(i, 12))) {
      std::string bdf(text.substr(i, 12));
      for (auto& c : bdf) c = static_cast<char>(std::tolower(c));
      return bdf;
    }
  }
  return {};
}

std::optional<CqError> ParseCqError(std::string_view message,
                                    std::string_view device) {
  static constexpr std::string_view kCq = "CQ error on CQN ";
  static constexpr std::string_view kSyn = "syndrome ";
  const auto at = message.find(kCq);
  if (at == std::string_view::npos) return std::nullopt;
  auto cqn = HexNumber(message.substr(at + kCq.size()));
  if (!cqn) return std::nullopt;
  const auto syn_at = message.find(kSyn, at + kCq.size());
  if (syn_at == std::string_view::npos) return std::nullopt;
  auto syn = HexNumber(message.substr(syn_at + kSyn.size()));
  if (!syn) return std::nullopt;
  CqError e;
  e.cqn = *cqn;
  e.syndrome = *syn;
  e.pci = FindPciAddress(message.substr(0, at));
  if (e.pci.empty() && device.substr(0, 5) == "+pci:") {
    e.pci = FindPciAddress(device.substr(5));
  }
  return e;
}

std::string SyndromeHex(std::uint32_t syndrome) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%x", syndrome);
  return buf;
}

const char* SyndromeReason(std::uint32_t syndrome) {
  switch (syndrome) {
    case 0x1:
      return "overrun";
    case 0x2:
      return "access_violation";
    default:
      return "unknown";
  }
}

}  // namespace rnic::kmsg
