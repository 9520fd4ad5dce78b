#include "collectors/probing/verbs_names.h"

#include <infiniband/verbs.h>

#include <cctype>

namespace rnic::probe {

std::string SnakeCase(std::string_view text) {
  std::string out;
  bool pending_sep = false;
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c)) {
      if (pending_sep && !out.empty()) out.push_back('_');
      pending_sep = false;
      out.push_back(static_cast<char>(std::tolower(c)));
    } else {
      pending_sep = true;
    }
  }
  return out.empty() ? "unknown" : out;
}

std::string WcStatusName(int status) {
  return SnakeCase(ibv_wc_status_str(static_cast<ibv_wc_status>(status)));
}

std::string AsyncEventName(int event_type) {
  switch (static_cast<ibv_event_type>(event_type)) {
    case IBV_EVENT_CQ_ERR:
      return "cq_err";
    case IBV_EVENT_QP_FATAL:
      return "qp_fatal";
    case IBV_EVENT_QP_REQ_ERR:
      return "qp_req_err";
    case IBV_EVENT_QP_ACCESS_ERR:
      return "qp_access_err";
    case IBV_EVENT_COMM_EST:
      return "comm_est";
    case IBV_EVENT_SQ_DRAINED:
      return "sq_drained";
    case IBV_EVENT_PATH_MIG:
      return "path_mig";
    case IBV_EVENT_PATH_MIG_ERR:
      return "path_mig_err";
    case IBV_EVENT_DEVICE_FATAL:
      return "device_fatal";
    case IBV_EVENT_PORT_ACTIVE:
      return "port_active";
    case IBV_EVENT_PORT_ERR:
      return "port_err";
    case IBV_EVENT_LID_CHANGE:
      return "lid_change";
    case IBV_EVENT_PKEY_CHANGE:
      return "pkey_change";
    case IBV_EVENT_SM_CHANGE:
      return "sm_change";
    case IBV_EVENT_SRQ_ERR:
      return "srq_err";
    case IBV_EVENT_SRQ_LIMIT_REACHED:
      return "srq_limit_reached";
    case IBV_EVENT_QP_LAST_WQE_REACHED:
      return "qp_last_wqe_reached";
    case IBV_EVENT_CLIENT_REREGISTER:
      return "client_reregister";
    case IBV_EVENT_GID_CHANGE:
      return "gid_change";
    case IBV_EVENT_WQ_FATAL:
      return "wq_fatal";
  }
  return "unknown_" + std::to_string(event_type);
}

bool IsPortEvent(int event_type) {
  switch (static_cast<ibv_event_type>(event_type)) {
    case IBV_EVENT_PORT_ACTIVE:
    case IBV_EVENT_PORT_ERR:
    case IBV_EVENT_LID_CHANGE:
    case IBV_EVENT_PKEY_CHANGE:
    case IBV_EVENT_SM_CHANGE:
    case IBV_EVENT_CLIENT_REREGISTER:
    case IBV_EVENT_GID_CHANGE:
      return true;
    default:
      return false;
  }
}

}  // namespace rnic::probe
