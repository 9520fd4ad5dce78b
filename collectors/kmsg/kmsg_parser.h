// Parsing of kernel log records as /dev/kmsg returns them
// ("<prio>,<seq>,<usec>,<flags>[,...];<message>\n" followed by " KEY=value"
// dictionary lines), and of the mlx5 CQ error line
// "mlx5_core 0000:08:00.0: mlx5_eq_async_int:...: CQ error on CQN 0x1a,
// syndrome 0x1".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace rnic::kmsg {

struct KmsgRecord {
  int priority = -1;  // facility*8 + level; -1 for a plain text line
  std::uint64_t seq = 0;
  bool has_seq = false;
  std::string_view message;  // without the header and the newline
  std::string_view device;   // dictionary DEVICE= value, "" if none
};

// Splits one record (its first line plus any continuation lines). A line
// without a kmsg header is returned whole as the message, so plain dmesg
// text works too.
[[nodiscard]] KmsgRecord ParseKmsgRecord(std::string_view record);

struct CqError {
  std::string pci;  // "0000:08:00.0", "" if the line names none
  std::uint32_t cqn = 0;
  std::uint32_t syndrome = 0;
};

// nullopt unless the message is a "CQ error on CQN 0x.., syndrome 0x.." line.
// The PCI address comes from the driver prefix of the message, else from a
// dictionary DEVICE=+pci:<bdf>.
[[nodiscard]] std::optional<CqError> ParseCqError(std::string_view message,
                                                  std::string_view device = {});

// "0x1" -> label value used for `syndrome`.
[[nodiscard]] std::string SyndromeHex(std::uint32_t syndrome);
// mlx5 CQ error syndromes: 0x1 overrun, 0x2 access violation.
[[nodiscard]] const char* SyndromeReason(std::uint32_t syndrome);

// First PCI address inside `text`, "" if none.
[[nodiscard]] std::string FindPciAddress(std::string_view text);

}  // namespace rnic::kmsg
