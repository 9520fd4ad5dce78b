#include "collectors/common/hw_counters.h"

#include <algorithm>
#include <array>
#include <utility>

namespace rnic {
namespace {

struct Desc {
  std::string_view name;
  std::string_view help;
  int width;
  HwCounterKind kind = HwCounterKind::kCounter;
};

// Sorted by name (binary search). Widths: mlx5 Q counters are read as
// 32-bit big-endian words by the driver, congestion and PPCNT counters as
// 64-bit; rxe keeps atomic64 counters.
constexpr std::array kTable = {
    Desc{"ack_deferred", "ACKs the rxe responder deferred", 64},
    Desc{"active_qps", "QPs currently allocated (bnxt_re level, not a count)",
         64, HwCounterKind::kGauge},
    Desc{"completer_retry_err", "Retries started by the rxe completer", 64},
    Desc{"duplicate_request", "Duplicate requests received", 32},
    Desc{"implied_nak_seq_err",
         "ACKs with a PSN larger than expected for an RDMA read or response",
         32},
    Desc{"link_downed", "Times the port's link went down", 64},
    Desc{"local_ack_timeout_err",
         "Times the sender QP's ACK timer expired (RC, XRC, DCT)", 32},
    Desc{"np_cnp_sent",
         "CNPs sent by the notification point after ECN-marked RoCEv2 packets",
         64},
    Desc{"np_ecn_marked_roce_packets",
         "RoCEv2 packets received with ECN congestion experienced", 64},
    Desc{"out_of_buffer", "Packets dropped for lack of a receive WQE on the QP",
         32},
    Desc{"out_of_seq_request", "Out-of-sequence requests received", 64},
    Desc{"out_of_sequence", "Out-of-sequence packets received", 32},
    Desc{"packet_seq_err", "NAK sequence-error packets received", 32},
    Desc{"rcvd_pkts", "Packets received", 64},
    Desc{"rcvd_rnr_err", "RNR NAKs received", 64},
    Desc{"rcvd_seq_err", "Packets received with a sequence error", 64},
    Desc{"rdma_recvs", "RDMA receives completed", 64},
    Desc{"rdma_sends", "RDMA sends completed", 64},
    Desc{"req_cqe_error", "Requester completions with an error", 32},
    Desc{"req_cqe_flush_error", "Requester completions flushed with error", 32},
    Desc{"req_remote_access_errors",
         "Requester remote access errors (NAK access)", 32},
    Desc{"req_remote_invalid_request",
         "Requester remote invalid request errors", 32},
    Desc{"req_rnr_retries_exceeded",
         "Requests that exceeded the RNR retry limit", 32},
    Desc{"req_transport_retries_exceeded",
         "Requests that exceeded the transport retry limit", 32},
    Desc{"resp_cqe_error", "Responder completions with an error", 32},
    Desc{"resp_cqe_flush_error", "Responder completions flushed with error",
         32},
    Desc{"resp_local_length_error", "Responder local length errors", 32},
    Desc{"resp_remote_access_errors", "Responder remote access errors", 32},
    Desc{"retry_exceeded_err", "Requests that exceeded the retry limit", 64},
    Desc{"retry_rnr_exceeded_err", "Requests that exceeded the RNR retry limit",
         64},
    Desc{"rnr_nak_retry_err", "RNR NAKs received (retry limit not exceeded)",
         32},
    Desc{"rp_cnp_handled", "CNPs handled by the reaction point", 64},
    Desc{"rp_cnp_ignored", "CNPs received and ignored", 64},
    Desc{"rx_atomic_requests", "Atomic requests received", 32},
    Desc{"rx_read_requests", "RDMA read requests received", 32},
    Desc{"rx_write_requests", "RDMA write requests received", 32},
    Desc{"send_err", "Send errors", 64},
    Desc{"send_rnr_err", "RNR NAKs sent", 64},
    Desc{"sent_pkts", "Packets sent", 64},
};

constexpr bool Sorted() {
  for (std::size_t i = 1; i < kTable.size(); ++i) {
    if (!(kTable[i - 1].name < kTable[i].name)) return false;
  }
  return true;
}
static_assert(Sorted(), "kTable must be sorted by name");

const Desc* Find(std::string_view name) {
  auto it = std::lower_bound(
      kTable.begin(), kTable.end(), name,
      [](const Desc& d, std::string_view n) { return d.name < n; });
  return it != kTable.end() && it->name == name ? &*it : nullptr;
}

}  // namespace

std::string HwCounterFamilyName(std::string_view counter) {
  std::string out = "rnic_hw_";
  out.reserve(out.size() + counter.size() + 6);
  for (char c : counter) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '_';
    out.push_back(ok ? c : '_');
  }
  if (HwCounterKindOf(counter) == HwCounterKind::kCounter) out += "_total";
  return out;
}

std::string_view HwCounterHelp(std::string_view counter) {
  const Desc* d = Find(counter);
  return d != nullptr ? d->help : kHwCounterGenericHelp;
}

HwCounterKind HwCounterKindOf(std::string_view counter) {
  const Desc* d = Find(counter);
  return d != nullptr ? d->kind : HwCounterKind::kCounter;
}

bool HwCounterKnown(std::string_view counter) {
  return Find(counter) != nullptr;
}

int HwCounterWidthBits(std::string_view counter) {
  const Desc* d = Find(counter);
  return d != nullptr ? d->width : 64;
}

}  // namespace rnic
