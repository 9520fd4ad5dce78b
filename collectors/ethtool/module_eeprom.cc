#include "collectors/ethtool/module_eeprom.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace rnic::optics {
namespace {

// SFF-8024 rev 4.x Table 4-1 (identifier values).
constexpr std::uint8_t kIdSfp = 0x03;
constexpr std::uint8_t kIdQsfp = 0x0c;
constexpr std::uint8_t kIdQsfpPlus = 0x0d;
constexpr std::uint8_t kIdQsfp28 = 0x11;
constexpr std::uint8_t kIdQsfpDd = 0x18;
constexpr std::uint8_t kIdOsfp = 0x19;
constexpr std::uint8_t kIdQsfpPlusCmis = 0x1e;

// Unit conversions shared by both specs (SFF-8636 6.2.4, CMIS 8.2.5/8.9.5).
double Temperature(std::uint8_t hi, std::uint8_t lo) {  // s16, 1/256 degC
  return static_cast<std::int16_t>((hi << 8) | lo) / 256.0;
}
double U16(std::uint8_t hi, std::uint8_t lo) { return (hi << 8) | lo; }
constexpr double kVolt = 100e-6;  // 100 uV per LSB
constexpr double kWatt = 0.1e-6;  // 0.1 uW per LSB
constexpr double kAmpere = 2e-6;  // 2 uA per LSB

// A byte of the address space: 0..127 from `lower`, 128..255 from `upper`.
struct View {
  const Page& lower;
  const Page* upper;
  [[nodiscard]] std::uint8_t operator[](int byte) const {
    return byte < 128 ? lower[byte] : (*upper)[byte - 128];
  }
  [[nodiscard]] double Word(int byte) const {
    return U16((*this)[byte], (*this)[byte + 1]);
  }
  [[nodiscard]] double Temp(int byte) const {
    return Temperature((*this)[byte], (*this)[byte + 1]);
  }
};

// Printable ASCII with the space padding (SFF-8636 6.3.x, CMIS 8.3,
// SFF-8472 8.x) cut.
std::string AsciiAt(const Page& page, int index, int len) {
  std::string s;
  for (int i = 0; i < len; ++i) {
    const char c = static_cast<char>(page[index + i]);
    s.push_back(c >= 0x20 && c < 0x7f ? c : '?');
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '?')) s.pop_back();
  return s;
}
// The same for a field of an upper page, by its byte address (128..255).
std::string Ascii(const Page& upper, int first_byte, int len) {
  return AsciiAt(upper, first_byte - 128, len);
}

// Four thresholds stored as high alarm, low alarm, high warning, low
// warning, two bytes each (both specs).
template <typename Conv>
Thresholds Quad(const View& v, int first, Conv conv) {
  return Thresholds{conv(v, first), conv(v, first + 2), conv(v, first + 4),
                    conv(v, first + 6)};
}
double TempAt(const View& v, int b) { return v.Temp(b); }
double VoltAt(const View& v, int b) { return v.Word(b) * kVolt; }
double WattAt(const View& v, int b) { return v.Word(b) * kWatt; }
double AmpAt(const View& v, int b) { return v.Word(b) * kAmpere; }

// SFF-8636: a nibble of flags, bit 3 high alarm .. bit 0 low warning
// (Tables 6-9, 6-10: bytes 9..14 hold two channels each, channel 1 high).
Flags Nibble(std::uint8_t n) {
  return Flags{(n & 0x8) != 0, (n & 0x4) != 0, (n & 0x2) != 0, (n & 0x1) != 0};
}
Flags ChannelFlags(const Page& lower, int first_byte, int lane) {
  const std::uint8_t b = lower[first_byte + lane / 2];
  return Nibble(lane % 2 == 0 ? (b >> 4) : (b & 0xf));
}

std::string Hex(std::uint8_t v) {
  constexpr char kDigits[] = "0123456789abcdef";
  return std::string{'0', 'x', kDigits[v >> 4], kDigits[v & 0xf]};
}

std::string TypeName(std::uint8_t id) {
  switch (id) {
    case kIdSfp:
      return "SFP";
    case kIdQsfp:
      return "QSFP";
    case kIdQsfpPlus:
      return "QSFP+";
    case kIdQsfp28:
      return "QSFP28";
    case kIdQsfpDd:
      return "QSFP-DD";
    case kIdOsfp:
      return "OSFP";
    case kIdQsfpPlusCmis:
      return "QSFP+ CMIS";
    default:
      return Hex(id);
  }
}

const Page* Find(const ModulePages& p, std::uint8_t bank, std::uint8_t page) {
  auto it = p.upper.find(PageId{bank, page});
  return it == p.upper.end() ? nullptr : &it->second;
}

Error MissingPage(std::uint8_t page) {
  return Error{"module EEPROM: page " + Hex(page).substr(2) + "h not read",
               EINVAL};
}

// SFF-8636 byte 2 bit 2: Flat_mem (upper page 00h only).
bool Sff8636Flat(std::span<const std::uint8_t> lower) {
  return (lower[2] & 0x04) != 0;
}
// CMIS byte 2 bit 7: MemoryModel (1 = flat, page 00h only).
bool CmisFlat(std::span<const std::uint8_t> lower) {
  return (lower[2] & 0x80) != 0;
}

// Page 01h byte 142 bits 1-0 (CMIS 5.2 Table 8-41, BanksSupported, for
// pages 10h-2Fh): 00b bank 0 (8 lanes), 01b banks 0-1 (16), 10b banks 0-3
// (32); 11b is reserved and read as bank 0 only.
int CmisBanks(const Page& p01) {
  switch (p01[142 - 128] & 0x03) {
    case 0x01:
      return 2;
    case 0x02:
      return 4;
    default:
      return 1;
  }
}

Result<Diagnostics> DecodeSff8636(const ModulePages& p) {
  // Byte 2 bit 0 (Table 6-2): Data_Not_Ready, monitors not valid yet (a
  // module just plugged or reset). The next round reads it again.
  if ((p.lower[2] & 0x01) != 0) {
    return Error{"module EEPROM: SFF-8636 data not ready", EAGAIN};
  }
  const Page* p00 = Find(p, 0, 0x00);
  if (p00 == nullptr) return MissingPage(0);
  Diagnostics d;
  d.spec = Spec::kSff8636;
  d.flat_memory = Sff8636Flat(p.lower);
  const View v{p.lower, p00};
  // Upper page 00h, Table 6-14: vendor name 148-163, PN 168-183, rev
  // 184-185, SN 196-211.
  d.vendor = Ascii(*p00, 148, 16);
  d.part_number = Ascii(*p00, 168, 16);
  d.revision = Ascii(*p00, 184, 2);
  d.serial = Ascii(*p00, 196, 16);
  // Lower page, Table 6-7: temperature 22-23, supply voltage 26-27.
  d.temperature_celsius = v.Temp(22);
  d.supply_voltage_volts = v.Word(26) * kVolt;
  // Table 6-9: byte 6 temperature flags, byte 7 Vcc flags (bits 7..4).
  d.temperature_flags = Nibble(p.lower[6] >> 4);
  d.supply_voltage_flags = Nibble(p.lower[7] >> 4);
  // Byte 220 bit 2 (Table 6-24): transmitter power measurement supported.
  const bool tx_power = ((*p00)[220 - 128] & 0x04) != 0;
  for (int lane = 0; lane < 4; ++lane) {
    Lane l;
    // Table 6-8: RX power 34-41, TX bias 42-49, TX power 50-57.
    l.rx_power_watts = v.Word(34 + 2 * lane) * kWatt;
    l.tx_bias_amperes = v.Word(42 + 2 * lane) * kAmpere;
    if (tx_power) l.tx_power_watts = v.Word(50 + 2 * lane) * kWatt;
    // Table 6-10: RX power flags 9-10, TX bias 11-12, TX power 13-14.
    l.rx_power_flags = ChannelFlags(p.lower, 9, lane);
    l.tx_bias_flags = ChannelFlags(p.lower, 11, lane);
    l.tx_power_flags = ChannelFlags(p.lower, 13, lane);
    // Table 6-6: byte 3 TX LOS bits 4-7 / RX LOS bits 0-3, byte 4 TX fault
    // bits 0-3, byte 5 TX CDR LOL bits 4-7 / RX CDR LOL bits 0-3; lane 1
    // lowest.
    l.faults.rx_los = (p.lower[3] >> lane) & 1;
    l.faults.tx_los = (p.lower[3] >> (4 + lane)) & 1;
    l.faults.tx_fault = (p.lower[4] >> lane) & 1;
    l.faults.rx_cdr_lol = (p.lower[5] >> lane) & 1;
    l.faults.tx_cdr_lol = (p.lower[5] >> (4 + lane)) & 1;
    d.lanes.push_back(l);
  }
  if (!d.flat_memory) {
    const Page* p03 = Find(p, 0, 0x03);
    if (p03 == nullptr) return MissingPage(3);
    // Upper page 03h, Table 6-26: temperature 128, Vcc 144, RX power 176,
    // TX bias 184, TX power 192 (each HA, LA, HW, LW).
    const View t{p.lower, p03};
    d.thresholds = Diagnostics::AllThresholds{
        Quad(t, 128, TempAt), Quad(t, 144, VoltAt), Quad(t, 184, AmpAt),
        Quad(t, 192, WattAt), Quad(t, 176, WattAt)};
  }
  return d;
}

Result<Diagnostics> DecodeCmis(const ModulePages& p) {
  const Page* p00 = Find(p, 0, 0x00);
  if (p00 == nullptr) return MissingPage(0);
  Diagnostics d;
  d.spec = Spec::kCmis;
  d.flat_memory = CmisFlat(p.lower);
  const View v{p.lower, p00};
  // Upper page 00h, Table 8-27: vendor name 129-144, PN 148-163, rev
  // 164-165, SN 166-181.
  d.vendor = Ascii(*p00, 129, 16);
  d.part_number = Ascii(*p00, 148, 16);
  d.revision = Ascii(*p00, 164, 2);
  d.serial = Ascii(*p00, 166, 16);
  // Lower page, Table 8-10: temperature 14-15, supply voltage 16-17.
  d.temperature_celsius = v.Temp(14);
  d.supply_voltage_volts = v.Word(16) * kVolt;
  // Table 8-9, byte 9: bits 0..3 temperature HA, LA, HW, LW; 4..7 Vcc.
  const std::uint8_t f = p.lower[9];
  d.temperature_flags =
      Flags{(f & 0x01) != 0, (f & 0x02) != 0, (f & 0x04) != 0, (f & 0x08) != 0};
  d.supply_voltage_flags =
      Flags{(f & 0x10) != 0, (f & 0x20) != 0, (f & 0x40) != 0, (f & 0x80) != 0};
  if (d.flat_memory) return d;

  const Page* p01 = Find(p, 0, 0x01);
  const Page* p02 = Find(p, 0, 0x02);
  const Page* p11 = Find(p, 0, 0x11);
  if (p01 == nullptr) return MissingPage(1);
  if (p02 == nullptr) return MissingPage(2);
  if (p11 == nullptr) return MissingPage(0x11);
  // Page 01h byte 160 (Table 8-45): bit 0 TX bias, bit 1 TX power, bit 2 RX
  // power monitors supported; bits 4-3 the TX bias multiplier (1, 2, 4).
  const std::uint8_t adv = (*p01)[160 - 128];
  const double bias_mul = 1 << ((adv >> 3) & 0x3);
  // Page 02h (Table 8-62): temperature 128, Vcc 136, TX power 176, TX bias
  // 184, RX power 192 (each HA, LA, HW, LW).
  const View t{p.lower, p02};
  auto bias = [bias_mul](const View& vv, int b) {
    return vv.Word(b) * kAmpere * bias_mul;
  };
  d.thresholds = Diagnostics::AllThresholds{
      Quad(t, 128, TempAt), Quad(t, 136, VoltAt), Quad(t, 184, bias),
      Quad(t, 176, WattAt), Quad(t, 192, WattAt)};
  // Appends the `lanes` first lanes of one bank's page 11h.
  auto add_lanes = [&](const Page* page11, int lanes) {
    const View l11{p.lower, page11};
    auto lane_flags = [&](int first, int lane) {
      const int bit = 1 << lane;
      return Flags{(l11[first] & bit) != 0, (l11[first + 1] & bit) != 0,
                   (l11[first + 2] & bit) != 0, (l11[first + 3] & bit) != 0};
    };
    for (int lane = 0; lane < lanes; ++lane) {
      Lane l;
      // Page 11h, Table 8-78..8-80: TX power 154-169, TX bias 170-185, RX
      // power 186-201, two bytes per lane.
      if (adv & 0x02) l.tx_power_watts = l11.Word(154 + 2 * lane) * kWatt;
      if (adv & 0x01) {
        l.tx_bias_amperes = l11.Word(170 + 2 * lane) * kAmpere * bias_mul;
      }
      if (adv & 0x04) l.rx_power_watts = l11.Word(186 + 2 * lane) * kWatt;
      // Page 11h, Table 8-77: lane flag bitmaps, TX power HA/LA/HW/LW at
      // 139-142, TX bias 143-146, RX power 149-152.
      l.tx_power_flags = lane_flags(139, lane);
      l.tx_bias_flags = lane_flags(143, lane);
      l.rx_power_flags = lane_flags(149, lane);
      // Table 8-77: TX fault 135, TX LOS 136, TX CDR LOL 137, RX LOS 147,
      // RX CDR LOL 148, one bit per lane.
      const int bit = 1 << lane;
      l.faults.tx_fault = (l11[135] & bit) != 0;
      l.faults.tx_los = (l11[136] & bit) != 0;
      l.faults.tx_cdr_lol = (l11[137] & bit) != 0;
      l.faults.rx_los = (l11[147] & bit) != 0;
      l.faults.rx_cdr_lol = (l11[148] & bit) != 0;
      d.lanes.push_back(l);
    }
  };
  const int banks = CmisBanks(*p01);
  if (banks == 1) {
    // Media lane count of the first application (byte 88 bits 3-0, Table
    // 8-22); 8 lanes when it does not say.
    int lanes = p.lower[88] & 0x0f;
    if (lanes < 1 || lanes > 8) lanes = 8;
    add_lanes(p11, lanes);
    return d;
  }
  // More than 8 lanes: each bank's page 11h holds 8 (bank 1 lanes 9-16,
  // bank 2 17-24, bank 3 25-32). The 4-bit lane count of byte 88 cannot
  // say more than 8, so every lane of every bank read is exported. A bank
  // the poller could not read ends the lanes there, so lane numbers stay
  // true.
  add_lanes(p11, 8);
  for (int bank = 1; bank < banks; ++bank) {
    const Page* bp = Find(p, static_cast<std::uint8_t>(bank), 0x11);
    if (bp == nullptr) break;
    add_lanes(bp, 8);
  }
  return d;
}

// SFF-8472 A0h byte 92, Diagnostic Monitoring Type (Table 8-5): bit 6
// DDM implemented, bit 5 internally calibrated, bit 4 externally
// calibrated, bit 2 address change required to reach A2h.
constexpr std::uint8_t kDdmImplemented = 0x40;
constexpr std::uint8_t kExternallyCalibrated = 0x10;
constexpr std::uint8_t kAddressChange = 0x04;

// How raw A2h readings become values in the units of the internally
// calibrated format (1/256 degC, 100 uV, 2 uA, 0.1 uW). Internally
// calibrated modules: the identity. Externally calibrated ones: the A2h
// constants (SFF-8472 9.3, Table 9-6), applied to readings and thresholds
// alike (the spec stores both as raw A/D values for such modules).
struct Sff8472Calibration {
  // Rx power = sum rx[i] * raw^i; rx[1] = 1 is the identity.
  std::array<double, 5> rx = {0, 1, 0, 0, 0};
  double bias_slope = 1, bias_offset = 0;
  double tx_slope = 1, tx_offset = 0;
  double temp_slope = 1, temp_offset = 0;
  double volt_slope = 1, volt_offset = 0;

  [[nodiscard]] double Temp(std::int16_t raw) const {
    return (temp_slope * raw + temp_offset) / 256.0;
  }
  [[nodiscard]] double Volt(double raw) const {
    return (volt_slope * raw + volt_offset) * kVolt;
  }
  [[nodiscard]] double Bias(double raw) const {
    return (bias_slope * raw + bias_offset) * kAmpere;
  }
  [[nodiscard]] double TxPower(double raw) const {
    return (tx_slope * raw + tx_offset) * kWatt;
  }
  [[nodiscard]] double RxPower(double raw) const {
    double sum = 0, power = 1;
    for (double c : rx) {
      sum += c * power;
      power *= raw;
    }
    return sum * kWatt;
  }
};

// A2h bytes 56-91 (Table 9-6): Rx_PWR(4) .. Rx_PWR(0) as big-endian
// IEEE 754 singles at 56, 60, 64, 68, 72; then slope (unsigned 8.8 fixed
// point) and offset (signed, in the reading's own unit) pairs for Tx_I at
// 76, Tx_PWR at 80, T at 84 and V at 88. Empty when a constant is not a
// finite number (an erased or garbled EEPROM).
std::optional<Sff8472Calibration> ExternalCalibration(const Page& a2) {
  Sff8472Calibration c;
  for (int i = 0; i < 5; ++i) {
    const int b = 56 + 4 * (4 - i);  // Rx_PWR(i)
    const std::uint32_t bits = (std::uint32_t{a2[b]} << 24) |
                               (std::uint32_t{a2[b + 1]} << 16) |
                               (std::uint32_t{a2[b + 2]} << 8) | a2[b + 3];
    c.rx[i] = std::bit_cast<float>(bits);
    if (!std::isfinite(c.rx[i])) return std::nullopt;
  }
  auto slope = [&](int b) { return U16(a2[b], a2[b + 1]) / 256.0; };
  auto offset = [&](int b) {
    return static_cast<double>(
        static_cast<std::int16_t>((a2[b] << 8) | a2[b + 1]));
  };
  c.bias_slope = slope(76);
  c.bias_offset = offset(78);
  c.tx_slope = slope(80);
  c.tx_offset = offset(82);
  c.temp_slope = slope(84);
  c.temp_offset = offset(86);
  c.volt_slope = slope(88);
  c.volt_offset = offset(90);
  return c;
}

// A2h flag bytes (Table 9-12): alarms in 112-113, warnings in 116-117, the
// same bit for the same quantity; `high_bit` is its high flag, the low
// flag the bit below it.
Flags Sff8472Flags(const Page& a2, int byte, int high_bit) {
  auto bit = [&](int b, int n) { return ((a2[b] >> n) & 1) != 0; };
  return Flags{bit(byte, high_bit), bit(byte, high_bit - 1),
               bit(byte + 4, high_bit), bit(byte + 4, high_bit - 1)};
}

Result<Diagnostics> DecodeSff8472(const ModulePages& p) {
  const Page& a0 = p.lower;
  Diagnostics d;
  d.spec = Spec::kSff8472;
  // A0h, Table 4-1: vendor name 20-35, PN 40-55, rev 56-59, SN 68-83.
  d.vendor = AsciiAt(a0, 20, 16);
  d.part_number = AsciiAt(a0, 40, 16);
  d.revision = AsciiAt(a0, 56, 4);
  d.serial = AsciiAt(a0, 68, 16);
  const std::uint8_t dmt = a0[92];
  if ((dmt & kDdmImplemented) == 0) {
    d.monitors = false;
    d.no_monitors_reason =
        "no digital diagnostics (SFF-8472 A0h byte 92 bit 6 clear)";
    return d;
  }
  if ((dmt & kAddressChange) != 0) {
    d.monitors = false;
    d.no_monitors_reason =
        "diagnostics need an address change sequence (SFF-8472 A0h byte 92 "
        "bit 2), which the kernel does not perform";
    return d;
  }
  if (!p.a2h) {
    return Error{"module EEPROM: SFF-8472 A2h (I2C address 0x51) not read",
                 EINVAL};
  }
  const Page& a2 = *p.a2h;
  // A2h byte 110 bit 0 (Table 9-11): Data_Ready_Bar, monitors not valid
  // yet (optional; modules without it leave it 0). The next round retries.
  if ((a2[110] & 0x01) != 0) {
    return Error{"module EEPROM: SFF-8472 data not ready", EAGAIN};
  }
  Sff8472Calibration cal;
  if ((dmt & kExternallyCalibrated) != 0) {
    auto ext = ExternalCalibration(a2);
    if (!ext) {
      d.monitors = false;
      d.no_monitors_reason =
          "externally calibrated module with non-finite Rx power "
          "calibration constants (SFF-8472 A2h bytes 56-75)";
      return d;
    }
    cal = *ext;
  }
  auto word = [&](int b) { return U16(a2[b], a2[b + 1]); };
  auto s16 = [&](int b) {
    return static_cast<std::int16_t>((a2[b] << 8) | a2[b + 1]);
  };
  // A2h bytes 96-105 (Table 9-11): temperature, Vcc, Tx bias, Tx power, Rx
  // power.
  d.temperature_celsius = cal.Temp(s16(96));
  d.supply_voltage_volts = cal.Volt(word(98));
  Lane l;
  l.tx_bias_amperes = cal.Bias(word(100));
  l.tx_power_watts = cal.TxPower(word(102));
  l.rx_power_watts = cal.RxPower(word(104));
  // Table 9-12: byte 112 bits 7/6 temperature, 5/4 Vcc, 3/2 Tx bias, 1/0
  // Tx power; byte 113 bits 7/6 Rx power (warnings 116-117 alike).
  d.temperature_flags = Sff8472Flags(a2, 112, 7);
  d.supply_voltage_flags = Sff8472Flags(a2, 112, 5);
  l.tx_bias_flags = Sff8472Flags(a2, 112, 3);
  l.tx_power_flags = Sff8472Flags(a2, 112, 1);
  l.rx_power_flags = Sff8472Flags(a2, 113, 7);
  // Byte 110 (Table 9-17), status: bit 2 TX fault, bit 1 RX LOS.
  l.faults.tx_fault = (a2[110] & 0x04) != 0;
  l.faults.rx_los = (a2[110] & 0x02) != 0;
  d.lanes.push_back(l);
  // A2h bytes 0-39 (Table 9-5): temperature 0, Vcc 8, Tx bias 16, Tx power
  // 24, Rx power 32 (each HA, LA, HW, LW).
  auto quad = [&](int first, auto conv) {
    return Thresholds{conv(first), conv(first + 2), conv(first + 4),
                      conv(first + 6)};
  };
  d.thresholds = Diagnostics::AllThresholds{
      quad(0, [&](int b) { return cal.Temp(s16(b)); }),
      quad(8, [&](int b) { return cal.Volt(word(b)); }),
      quad(16, [&](int b) { return cal.Bias(word(b)); }),
      quad(24, [&](int b) { return cal.TxPower(word(b)); }),
      quad(32, [&](int b) { return cal.RxPower(word(b)); })};
  return d;
}

Result<Diagnostics> DecodeAs(Spec spec, const ModulePages& pages) {
  switch (spec) {
    case Spec::kCmis:
      return DecodeCmis(pages);
    case Spec::kSff8472:
      return DecodeSff8472(pages);
    case Spec::kSff8636:
      break;
  }
  return DecodeSff8636(pages);
}

}  // namespace

std::string_view SpecName(Spec spec) {
  switch (spec) {
    case Spec::kCmis:
      return "cmis";
    case Spec::kSff8472:
      return "sff8472";
    case Spec::kSff8636:
      break;
  }
  return "sff8636";
}

Result<Spec> Identify(std::span<const std::uint8_t> lower) {
  if (lower.size() < 128) {
    return Error{"module EEPROM: lower page shorter than 128 bytes", EINVAL};
  }
  switch (lower[0]) {
    case kIdSfp:
      return Spec::kSff8472;
    case kIdQsfp:
    case kIdQsfpPlus:
    case kIdQsfp28:
      return Spec::kSff8636;
    case kIdQsfpDd:
    case kIdOsfp:
    case kIdQsfpPlusCmis:
      return Spec::kCmis;
    default:
      return Error{"module EEPROM: identifier " + Hex(lower[0]) +
                       " is neither SFF-8636, CMIS nor SFF-8472",
                   EOPNOTSUPP};
  }
}

std::vector<PageId> PagesToRead(Spec spec,
                                std::span<const std::uint8_t> lower) {
  if (spec == Spec::kSff8472) return {};
  std::vector<PageId> pages = {{0, 0x00}};
  if (lower.size() < 128) return pages;
  if (spec == Spec::kSff8636) {
    if (!Sff8636Flat(lower)) pages.push_back({0, 0x03});
  } else if (!CmisFlat(lower)) {
    pages.push_back({0, 0x01});
    pages.push_back({0, 0x02});
    pages.push_back({0, 0x11});
  }
  return pages;
}

std::vector<PageId> BankPagesToRead(Spec spec, const ModulePages& pages) {
  if (spec != Spec::kCmis || CmisFlat(pages.lower)) return {};
  const Page* p01 = Find(pages, 0, 0x01);
  if (p01 == nullptr) return {};
  std::vector<PageId> out;
  for (int bank = 1; bank < CmisBanks(*p01); ++bank) {
    out.push_back({static_cast<std::uint8_t>(bank), 0x11});
  }
  return out;
}

bool WantsA2h(Spec spec, std::span<const std::uint8_t> lower) {
  return spec == Spec::kSff8472 && lower.size() > 92 &&
         (lower[92] & kDdmImplemented) != 0 &&
         (lower[92] & kAddressChange) == 0;
}

Result<Diagnostics> Decode(const ModulePages& pages) {
  auto spec = Identify(pages.lower);
  if (!spec) return spec.error();
  auto d = DecodeAs(*spec, pages);
  if (d) {
    d->identifier = pages.lower[0];
    d->type = TypeName(pages.lower[0]);
  }
  return d;
}

}  // namespace rnic::optics
