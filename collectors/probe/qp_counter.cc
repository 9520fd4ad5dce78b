#include "collectors/probe/qp_counter.h"

#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <sys/time.h>

namespace rnic::probe {
namespace {

constexpr int kMaxAttr = RDMA_NLDEV_ATTR_MAX - 1;

struct Exchange {
  int kernel_errno = 0;
  bool got_reply = false;
  Result<CounterReply> reply = Error{"no reply"};
};

int OnValid(nl_msg* msg, void* arg) {
  auto* ex = static_cast<Exchange*>(arg);
  ex->got_reply = true;
  ex->reply = ParseCounterReply(nlmsg_hdr(msg));
  return NL_OK;
}

int OnError(sockaddr_nl*, nlmsgerr* err, void* arg) {
  auto* ex = static_cast<Exchange*>(arg);
  ex->kernel_errno = -err->error;
  return NL_STOP;
}

Status ParseHwCounters(nlattr* nest, CounterReply& out) {
  nlattr* entry;
  int rem;
  nla_for_each_nested(entry, nest, rem) {
    nlattr* etb[RDMA_NLDEV_ATTR_MAX] = {};
    if (nla_parse_nested(etb, kMaxAttr, entry, nullptr) < 0) {
      return Error{"bad STAT_HWCOUNTER_ENTRY"};
    }
    if (!etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] ||
        !etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]) {
      continue;
    }
    out.values[nla_get_string(etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME])] =
        nla_get_u64(etb[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE]);
  }
  return Status::Ok();
}

// Reads the counter fields from one attribute table (any nesting level).
Status FromTable(nlattr** tb, CounterReply& out) {
  if (tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]) {
    out.counter_id = nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]);
    out.has_counter_id = true;
  }
  if (tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]) {
    return ParseHwCounters(tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS], out);
  }
  return Status::Ok();
}

}  // namespace

Result<CounterReply> ParseCounterReply(nlmsghdr* nlh) {
  nlattr* tb[RDMA_NLDEV_ATTR_MAX] = {};
  if (nlmsg_parse(nlh, 0, tb, kMaxAttr, nullptr) < 0) {
    return Error{"cannot parse RDMA netlink reply"};
  }
  CounterReply out;
  if (Status s = FromTable(tb, out); !s.ok()) return s.error();
  if (tb[RDMA_NLDEV_ATTR_STAT_COUNTER]) {
    nlattr* entry;
    int rem;
    nla_for_each_nested(entry, tb[RDMA_NLDEV_ATTR_STAT_COUNTER], rem) {
      nlattr* etb[RDMA_NLDEV_ATTR_MAX] = {};
      if (nla_parse_nested(etb, kMaxAttr, entry, nullptr) < 0) continue;
      if (Status s = FromTable(etb, out); !s.ok()) return s.error();
    }
  }
  return out;
}

Result<std::unique_ptr<QpCounterClient>> QpCounterClient::Open() {
  nl_sock* sk = nl_socket_alloc();
  if (!sk) return Error{"nl_socket_alloc failed"};
  if (int rc = nl_connect(sk, NETLINK_RDMA); rc < 0) {
    nl_socket_free(sk);
    return Error{std::string("nl_connect(NETLINK_RDMA): ") + nl_geterror(rc)};
  }
  // A kernel that never answers must not hang the probe thread.
  timeval tv{1, 0};
  setsockopt(nl_socket_get_fd(sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return std::unique_ptr<QpCounterClient>(new QpCounterClient(sk));
}

QpCounterClient::~QpCounterClient() { nl_socket_free(sk_); }

namespace {

Result<CounterReply> Transact(nl_sock* sk, int cmd, std::uint32_t dev,
                              std::uint32_t port, std::uint32_t qpn,
                              std::uint32_t counter_id, bool manual) {
  nl_msg* msg = nlmsg_alloc();
  if (!msg) return Error{"nlmsg_alloc failed"};
  nlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ,
            RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, NLM_F_REQUEST);
  nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, dev);
  nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port);
  nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_RES, RDMA_NLDEV_ATTR_RES_QP);
  if (manual) {
    nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_MANUAL);
    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qpn);
  }
  if (counter_id != 0) {
    nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_COUNTER_ID, counter_id);
  }
  Exchange ex;
  nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, OnValid, &ex);
  nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, OnError, &ex);
  int rc = nl_send_auto(sk, msg);
  nlmsg_free(msg);
  if (rc < 0) return Error{std::string("nl_send_auto: ") + nl_geterror(rc)};
  rc = nl_recvmsgs_default(sk);
  if (ex.kernel_errno != 0) {
    return Error::FromErrno(
        cmd == RDMA_NLDEV_CMD_STAT_SET ? "STAT_SET" : "STAT_GET",
        ex.kernel_errno);
  }
  if (rc < 0 && !ex.got_reply) {
    return Error{std::string("nl_recvmsgs: ") + nl_geterror(rc)};
  }
  return std::move(ex.reply);
}

}  // namespace

Result<std::uint32_t> QpCounterClient::BindNew(std::uint32_t dev_index,
                                               std::uint32_t port,
                                               std::uint32_t qpn) {
  auto r =
      Transact(sk_, RDMA_NLDEV_CMD_STAT_SET, dev_index, port, qpn, 0, true);
  if (!r) return r.error();
  if (!r->has_counter_id) return Error{"STAT_SET reply without a counter id"};
  return r->counter_id;
}

Status QpCounterClient::BindTo(std::uint32_t dev_index, std::uint32_t port,
                               std::uint32_t qpn, std::uint32_t counter_id) {
  auto r = Transact(sk_, RDMA_NLDEV_CMD_STAT_SET, dev_index, port, qpn,
                    counter_id, true);
  if (!r) return r.error();
  return Status::Ok();
}

Result<std::map<std::string, std::uint64_t>> QpCounterClient::Read(
    std::uint32_t dev_index, std::uint32_t port, std::uint32_t counter_id) {
  auto r = Transact(sk_, RDMA_NLDEV_CMD_STAT_GET, dev_index, port, 0,
                    counter_id, false);
  if (!r) return r.error();
  return std::move(r->values);
}

void MonotonicCounters::Rebound() {
  for (const auto& [k, v] : last_) base_[k] += v;
  last_.clear();
}

void MonotonicCounters::Update(
    const std::map<std::string, std::uint64_t>& current) {
  for (const auto& [k, v] : current) {
    auto it = last_.find(k);
    // A value going down without a rebind: the counter was reset under us.
    if (it != last_.end() && v < it->second) base_[k] += it->second;
    last_[k] = v;
  }
}

std::map<std::string, std::uint64_t> MonotonicCounters::Values() const {
  std::map<std::string, std::uint64_t> out = base_;
  for (const auto& [k, v] : last_) out[k] += v;
  return out;
}

}  // namespace rnic::probe
