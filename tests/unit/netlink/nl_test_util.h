// Helpers for the netlink unit tests: build kernel-shaped RDMA netlink
// answers with libnl (nla_put / nla_nest_*), and look samples up in a
// MetricSet.
#pragma once

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "collectors/metrics/metric_set.h"
#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic::nl::testing {

// One netlink message under construction (owns the nl_msg).
class Msg {
 public:
  explicit Msg(std::uint16_t cmd, int flags = NLM_F_MULTI)
      : msg_(nlmsg_alloc_simple(MsgType(cmd), flags)) {}
  ~Msg() { nlmsg_free(msg_); }
  Msg(const Msg&) = delete;
  Msg& operator=(const Msg&) = delete;

  Msg& U8(int type, std::uint8_t v) {
    nla_put_u8(msg_, type, v);
    return *this;
  }
  Msg& U32(int type, std::uint32_t v) {
    nla_put_u32(msg_, type, v);
    return *this;
  }
  Msg& U64(int type, std::uint64_t v) {
    nla_put_u64(msg_, type, v);
    return *this;
  }
  Msg& Str(int type, const std::string& v) {
    nla_put_string(msg_, type, v.c_str());
    return *this;
  }
  Msg& Raw(int type, const std::vector<std::uint8_t>& v) {
    nla_put(msg_, type, static_cast<int>(v.size()), v.data());
    return *this;
  }
  Msg& Begin(int type) {
    nests_.push_back(nla_nest_start(msg_, type));
    return *this;
  }
  Msg& End() {
    nla_nest_end(msg_, nests_.back());
    nests_.pop_back();
    return *this;
  }
  // STAT_HWCOUNTER_ENTRY {NAME, VALUE}
  Msg& Counter(const std::string& name, std::uint64_t value) {
    return Begin(kAttrStatHwcounterEntry)
        .Str(kAttrStatHwcounterEntryName, name)
        .U64(kAttrStatHwcounterEntryValue, value)
        .End();
  }
  [[nodiscard]] std::vector<std::uint8_t> Bytes() const {
    const nlmsghdr* h = nlmsg_hdr(msg_);
    const auto* p = reinterpret_cast<const std::uint8_t*>(h);
    return {p, p + NLMSG_ALIGN(h->nlmsg_len)};
  }

 private:
  nl_msg* msg_;
  std::vector<nlattr*> nests_;
};

inline std::vector<std::uint8_t> Done() {
  nlmsghdr h{};
  h.nlmsg_len = NLMSG_LENGTH(sizeof(int));
  h.nlmsg_type = NLMSG_DONE;
  h.nlmsg_flags = NLM_F_MULTI;
  std::vector<std::uint8_t> out(NLMSG_ALIGN(h.nlmsg_len), 0);
  std::memcpy(out.data(), &h, sizeof(h));
  return out;
}

inline std::vector<std::uint8_t> ErrorMsg(int err) {
  nlmsghdr h{};
  h.nlmsg_len = NLMSG_LENGTH(sizeof(nlmsgerr));
  h.nlmsg_type = NLMSG_ERROR;
  nlmsgerr e{};
  e.error = -err;
  std::vector<std::uint8_t> out(NLMSG_ALIGN(h.nlmsg_len), 0);
  std::memcpy(out.data(), &h, sizeof(h));
  std::memcpy(out.data() + NLMSG_HDRLEN, &e, sizeof(e));
  return out;
}

inline std::vector<std::uint8_t> Join(
    std::initializer_list<std::vector<std::uint8_t>> parts) {
  std::vector<std::uint8_t> out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

inline std::optional<double> Sample(const MetricSet& set,
                                    const std::string& name,
                                    const Labels& labels) {
  for (const auto& f : set.families()) {
    if (f.name != name) continue;
    for (const auto& m : f.metric) {
      bool all = std::all_of(labels.begin(), labels.end(), [&](const Label& l) {
        return LabelValue(m, l.name) == l.value;
      });
      if (!all) continue;
      return f.type == prometheus::MetricType::Counter ? m.counter.value
                                                       : m.gauge.value;
    }
  }
  return std::nullopt;
}

inline std::size_t SeriesOf(const MetricSet& set, const std::string& name) {
  for (const auto& f : set.families()) {
    if (f.name == name) return f.metric.size();
  }
  return 0;
}

inline std::vector<std::string> LabelValues(const MetricSet& set,
                                            const std::string& label) {
  std::set<std::string> vals;
  for (const auto& f : set.families()) {
    for (const auto& m : f.metric) {
      for (const auto& l : m.label) {
        if (l.name == label) vals.insert(l.value);
      }
    }
  }
  return {vals.begin(), vals.end()};
}

inline std::string FixtureDir(const std::string& name) {
  return std::string(RNIC_FIXTURES_DIR) + "/netlink/" + name;
}

}  // namespace rnic::nl::testing
