// Label values derived from libibverbs and librdmacm enums, the same in the
// probe's and the fabric probe's series.
#pragma once

#include <string>
#include <string_view>

namespace rnic::probe {

// "transport retry counter exceeded" -> "transport_retry_counter_exceeded".
[[nodiscard]] std::string SnakeCase(std::string_view text);
// Label value for an ibv_wc_status, derived from ibv_wc_status_str().
[[nodiscard]] std::string WcStatusName(int status);
// Label value for an ibv_event_type ("cq_err", "port_active", ...).
[[nodiscard]] std::string AsyncEventName(int event_type);
// True for the ibv_event_types that carry a port number.
[[nodiscard]] bool IsPortEvent(int event_type);

}  // namespace rnic::probe
