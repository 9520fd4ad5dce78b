#include "collectors/nl/rdma_source.h"

#include "collectors/nl/attr_parser.h"
#include "collectors/nl/rdma_nl_uapi.h"

namespace rnic::nl {
namespace {

Error Malformed(std::string what) {
  return Error{"netlink: malformed " + std::move(what), EBADMSG};
}

Request DevRequest(std::uint16_t cmd, bool dump, std::uint32_t dev) {
  return Request{cmd, dump, {{kAttrDevIndex, dev}}};
}

Request PortRequest(std::uint16_t cmd, bool dump, std::uint32_t dev,
                    std::uint32_t port) {
  Request r{cmd, dump};
  r.u32_attrs = {{kAttrDevIndex, dev}, {kAttrPortIndex, port}};
  // nldev's GET doits answer with one message (nldev_port_get_doit,
  // nldev_stat_get_doit, stat_get_doit_default_counter,
  // nldev_stat_get_counter_status_doit).
  r.single_reply = !dump && cmd != kCmdStatSet;
  return r;
}

// Streams a nested table of STAT_HWCOUNTER_ENTRY {NAME, VALUE}.
template <typename F>
Status EachHwCounter(AttrView table, F&& fn) {
  Attrs entry;
  return ForEachNested(table, [&](std::uint16_t type, AttrView v) -> Status {
    if (type != kAttrStatHwcounterEntry) return Status::Ok();
    Status st = entry.ParseNested(v);
    if (!st.ok()) return st;
    auto name = entry.Str(kAttrStatHwcounterEntryName);
    auto value = entry.U64(kAttrStatHwcounterEntryValue);
    if (!name || !value) return Malformed("hw counter entry");
    fn(*name, *value);
    return Status::Ok();
  });
}

// Reads a nested table of STAT_HWCOUNTER_ENTRY {NAME, VALUE}.
Status ParseHwCounters(AttrView table, std::vector<HwCounter>* out) {
  return EachHwCounter(table, [&](std::string_view name, std::uint64_t v) {
    out->push_back(HwCounter{std::string(name), v});
  });
}

Owner ReadOwner(const Attrs& a) {
  Owner o;
  o.pid = a.U32(kAttrResPid);
  if (auto k = a.Str(kAttrResKernName)) o.kern_name = *k;
  return o;
}

struct ResSpec {
  std::uint16_t cmd;
  std::uint16_t table;
  std::uint16_t entry;
};

ResSpec SpecOf(ResKind kind) {
  switch (kind) {
    case ResKind::kQp:
      return {kCmdResQpGet, kAttrResQp, kAttrResQpEntry};
    case ResKind::kCq:
      return {kCmdResCqGet, kAttrResCq, kAttrResCqEntry};
    case ResKind::kMr:
      return {kCmdResMrGet, kAttrResMr, kAttrResMrEntry};
    case ResKind::kPd:
      return {kCmdResPdGet, kAttrResPd, kAttrResPdEntry};
    case ResKind::kCtx:
      return {kCmdResCtxGet, kAttrResCtx, kAttrResCtxEntry};
  }
  return {0, 0, 0};
}

// One PORT_GET message (doit or dump alike: fill_port_info).
Status ParsePort(Attrs& a, const nlmsghdr& m, PortInfo& p) {
  Status pst = a.ParseMessage(m);
  if (!pst.ok()) return pst;
  auto idx = a.U32(kAttrDevIndex);
  auto port = a.U32(kAttrPortIndex);
  if (!idx || !port) return Status(Malformed("port message"));
  p.dev_index = *idx;
  if (auto n = a.Str(kAttrDevName)) p.dev_name = std::string(*n);
  p.port = *port;
  p.state = a.U8(kAttrPortState);
  p.phys_state = a.U8(kAttrPortPhysState);
  p.netdev_index = a.U32(kAttrNdevIndex);
  if (auto n = a.Str(kAttrNdevName)) p.netdev_name = std::string(*n);
  return Status::Ok();
}

}  // namespace

const char* ResKindName(ResKind kind) {
  switch (kind) {
    case ResKind::kQp:
      return "qp";
    case ResKind::kCq:
      return "cq";
    case ResKind::kMr:
      return "mr";
    case ResKind::kPd:
      return "pd";
    case ResKind::kCtx:
      return "ctx";
  }
  return "?";
}

Result<std::vector<DeviceInfo>> RdmaNetlinkSource::Devices() {
  std::vector<DeviceInfo> out;
  Attrs a;
  Status st = t_.Exchange(Request{kCmdGet, true, {}}, [&](const nlmsghdr& m) {
    Status pst = a.ParseMessage(m);
    if (!pst.ok()) return pst;
    auto idx = a.U32(kAttrDevIndex);
    auto name = a.Str(kAttrDevName);
    if (!idx || !name) return Status(Malformed("device message"));
    DeviceInfo d;
    d.index = *idx;
    d.name = std::string(*name);
    d.num_ports = a.U32(kAttrPortIndex).value_or(0);
    d.node_type = a.U8(kAttrDevNodeType);
    if (auto fw = a.Str(kAttrFwVersion)) d.fw_version = std::string(*fw);
    d.node_guid = a.U64(kAttrNodeGuid);
    if (auto p = a.Str(kAttrDevProtocol)) d.protocol = std::string(*p);
    out.push_back(std::move(d));
    return Status::Ok();
  });
  if (!st.ok()) return st.error();
  return out;
}

Result<std::vector<PortInfo>> RdmaNetlinkSource::Ports(
    std::uint32_t dev, std::uint32_t num_ports) {
  const DevPorts one{dev, num_ports};
  Result<std::vector<PortInfo>> out = std::vector<PortInfo>{};
  PortsBatch(std::span(&one, 1), [&](std::size_t, const Status& st,
                                     const std::vector<PortInfo>& ports) {
    if (st.ok()) {
      out = ports;
    } else {
      out = st.error();
    }
  });
  return out;
}

void RdmaNetlinkSource::PortsBatch(std::span<const DevPorts> devs,
                                   const PortsFn& fn) {
  std::vector<Request> reqs;
  reqs.reserve(devs.size());
  for (const DevPorts& d : devs) {
    // As Ports(): the doit for a one-port device, else a dump.
    reqs.push_back(d.num_ports == 1
                       ? PortRequest(kCmdPortGet, false, d.dev_index, 1)
                       : DevRequest(kCmdPortGet, true, d.dev_index));
  }
  std::vector<std::vector<PortInfo>> ports(devs.size());
  std::vector<Status> results;
  Attrs a;
  t_.ExchangeBatch(
      reqs,
      [&](std::size_t i, const nlmsghdr& m) {
        PortInfo p;
        Status st = ParsePort(a, m, p);
        if (st.ok()) ports[i].push_back(std::move(p));
        return st;
      },
      results);
  for (std::size_t i = 0; i < devs.size(); ++i) fn(i, results[i], ports[i]);
}

void RdmaNetlinkSource::PortStatsBatch(std::span<const PortRef> ports,
                                       const BatchCounterFn& fn,
                                       std::vector<Status>& results) {
  std::vector<Request> reqs;
  reqs.reserve(ports.size());
  for (const PortRef& p : ports) {
    reqs.push_back(PortRequest(kCmdStatGet, false, p.dev_index, p.port));
  }
  std::vector<bool> got(ports.size(), false);
  Attrs a;
  t_.ExchangeBatch(
      reqs,
      [&](std::size_t i, const nlmsghdr& m) {
        Status pst = a.ParseMessage(m);
        if (!pst.ok()) return pst;
        auto table = a.Nested(kAttrStatHwcounters);
        if (!table) return Status(Malformed("STAT_GET answer"));
        got[i] = true;
        return EachHwCounter(*table, [&](std::string_view name,
                                         std::uint64_t v) { fn(i, name, v); });
      },
      results);
  for (std::size_t i = 0; i < ports.size(); ++i) {
    if (results[i].ok() && !got[i]) {
      results[i] = Malformed("STAT_GET answer (empty)");
    }
  }
}

Result<PortCounters> RdmaNetlinkSource::PortStats(std::uint32_t dev,
                                                  std::uint32_t port) {
  PortCounters out;
  out.dev_index = dev;
  out.port = port;
  const PortRef one{dev, port};
  std::vector<Status> results;
  PortStatsBatch(
      std::span(&one, 1),
      [&](std::size_t, std::string_view name, std::uint64_t v) {
        out.counters.push_back(HwCounter{std::string(name), v});
      },
      results);
  if (!results[0].ok()) return results[0].error();
  return out;
}

Result<std::vector<OptionalCounter>> RdmaNetlinkSource::CounterStatus(
    std::uint32_t dev, std::uint32_t port) {
  std::vector<OptionalCounter> out;
  Attrs a;
  Attrs entry;
  Status st = t_.Exchange(
      PortRequest(kCmdStatGetStatus, false, dev, port), [&](const nlmsghdr& m) {
        Status pst = a.ParseMessage(m);
        if (!pst.ok()) return pst;
        auto table = a.Nested(kAttrStatHwcounters);
        if (!table) return Status::Ok();  // no counters at all
        return ForEachNested(
            *table, [&](std::uint16_t type, AttrView v) -> Status {
              if (type != kAttrStatHwcounterEntry) return Status::Ok();
              Status est = entry.ParseNested(v);
              if (!est.ok()) return est;
              auto name = entry.Str(kAttrStatHwcounterEntryName);
              if (!name) return Malformed("counter status entry");
              // Only optional counters carry DYNAMIC (their on/off state).
              auto dyn = entry.U8(kAttrStatHwcounterDynamic);
              if (!dyn) return Status::Ok();
              out.push_back(OptionalCounter{
                  std::string(*name),
                  entry.U32(kAttrStatHwcounterIndex).value_or(0), *dyn != 0});
              return Status::Ok();
            });
      });
  if (!st.ok()) return st.error();
  return out;
}

Status RdmaNetlinkSource::BoundCounters(
    std::uint32_t dev, std::uint32_t port,
    const std::function<void(const BoundCounter&)>& fn) {
  Request req = PortRequest(kCmdStatGet, true, dev, port);
  req.u32_attrs.emplace_back(kAttrStatRes, kAttrResQp);
  Attrs a;
  Attrs line;
  BoundCounter bc;
  return t_.Exchange(req, [&](const nlmsghdr& m) {
    Status pst = a.ParseMessage(m);
    if (!pst.ok()) return pst;
    auto table = a.Nested(kAttrStatCounter);
    if (!table) return Status::Ok();
    return ForEachNested(*table, [&](std::uint16_t type, AttrView v) -> Status {
      if (type != kAttrStatCounterEntry) return Status::Ok();
      Status lst = line.ParseNested(v);
      if (!lst.ok()) return lst;
      auto id = line.U32(kAttrStatCounterId);
      auto hw = line.Nested(kAttrStatHwcounters);
      if (!id || !hw) return Malformed("bound counter entry");
      bc = BoundCounter{};
      bc.id = *id;
      bc.port = line.U32(kAttrPortIndex).value_or(port);
      bc.qp_type = line.U8(kAttrResType);
      bc.owner = ReadOwner(line);
      if (auto qps = line.Nested(kAttrResQp)) {
        Status qst = ForEachNested(*qps, [&](std::uint16_t t, AttrView) {
          if (t == kAttrResQpEntry) ++bc.num_qps;
          return Status::Ok();
        });
        if (!qst.ok()) return qst;
      }
      Status hst = ParseHwCounters(*hw, &bc.counters);
      if (!hst.ok()) return hst;
      fn(bc);
      return Status::Ok();
    });
  });
}

Result<std::vector<ResSummary>> RdmaNetlinkSource::ResourceSummary() {
  std::vector<ResSummary> out;
  Attrs a;
  Attrs entry;
  Status st =
      t_.Exchange(Request{kCmdResGet, true, {}}, [&](const nlmsghdr& m) {
        Status pst = a.ParseMessage(m);
        if (!pst.ok()) return pst;
        auto idx = a.U32(kAttrDevIndex);
        auto table = a.Nested(kAttrResSummary);
        if (!idx || !table) return Status(Malformed("RES_GET answer"));
        ResSummary s;
        s.entries.reserve(8);  // the kernel's seven kinds, and room
        s.dev_index = *idx;
        if (auto n = a.Str(kAttrDevName)) s.dev_name = std::string(*n);
        Status tst = ForEachNested(*table, [&](std::uint16_t type, AttrView v) {
          if (type != kAttrResSummaryEntry) return Status::Ok();
          Status est = entry.ParseNested(v);
          if (!est.ok()) return est;
          auto name = entry.Str(kAttrResSummaryEntryName);
          auto curr = entry.U64(kAttrResSummaryEntryCurr);
          if (!name || !curr) return Status(Malformed("summary entry"));
          s.entries.emplace_back(std::string(*name), *curr);
          return Status::Ok();
        });
        if (!tst.ok()) return tst;
        out.push_back(std::move(s));
        return Status::Ok();
      });
  if (!st.ok()) return st.error();
  return out;
}

Status RdmaNetlinkSource::DumpResources(
    ResKind kind, std::uint32_t dev,
    const std::function<void(const ResEntry&)>& fn) {
  const ResSpec spec = SpecOf(kind);
  Attrs a;
  Attrs e;
  ResEntry r;
  return t_.Exchange(DevRequest(spec.cmd, true, dev), [&](const nlmsghdr& m) {
    Status pst = a.ParseMessage(m);
    if (!pst.ok()) return pst;
    auto table = a.Nested(spec.table);
    if (!table) return Status::Ok();  // a message without objects
    return ForEachNested(*table, [&](std::uint16_t type, AttrView v) -> Status {
      if (type != spec.entry) return Status::Ok();
      Status est = e.ParseNested(v);
      if (!est.ok()) return est;
      r = ResEntry{};
      r.kind = kind;
      r.owner = ReadOwner(e);
      switch (kind) {
        case ResKind::kQp:
          r.port = e.U32(kAttrPortIndex).value_or(0);
          r.qp_type = e.U8(kAttrResType);
          r.qp_state = e.U8(kAttrResState);
          break;
        case ResKind::kCq:
          r.cqe = e.U32(kAttrResCqe);
          break;
        case ResKind::kMr:
          r.mrlen = e.U64(kAttrResMrlen);
          break;
        case ResKind::kPd:
        case ResKind::kCtx:
          break;
      }
      fn(r);
      return Status::Ok();
    });
  });
}

Result<std::uint32_t> RdmaNetlinkSource::BindQpToCounter(
    std::uint32_t dev, std::uint32_t port, std::uint32_t qpn,
    std::optional<std::uint32_t> counter_id) {
  Request req = PortRequest(kCmdStatSet, false, dev, port);
  req.u32_attrs.emplace_back(kAttrStatRes, kAttrResQp);
  req.u32_attrs.emplace_back(kAttrStatMode, kCounterModeManual);
  req.u32_attrs.emplace_back(kAttrResLqpn, qpn);
  if (counter_id) req.u32_attrs.emplace_back(kAttrStatCounterId, *counter_id);
  std::optional<std::uint32_t> answered;
  Attrs a;
  Status st = t_.Exchange(req, [&](const nlmsghdr& m) {
    Status pst = a.ParseMessage(m);
    if (!pst.ok()) return pst;
    // The kernel echoes the counter the QP now belongs to.
    if (auto id = a.U32(kAttrStatCounterId)) answered = *id;
    return Status::Ok();
  });
  if (!st.ok()) return st.error();
  if (!answered) return Malformed("STAT_SET answer (no counter id)");
  return *answered;
}

Result<std::vector<HwCounter>> RdmaNetlinkSource::CounterValues(
    std::uint32_t dev, std::uint32_t port, std::uint32_t counter_id) {
  Request req = PortRequest(kCmdStatGet, false, dev, port);
  req.u32_attrs.emplace_back(kAttrStatRes, kAttrResQp);
  req.u32_attrs.emplace_back(kAttrStatCounterId, counter_id);
  std::vector<HwCounter> out;
  bool got = false;
  Attrs a;
  Attrs line;
  Status st = t_.Exchange(req, [&](const nlmsghdr& m) {
    Status pst = a.ParseMessage(m);
    if (!pst.ok()) return pst;
    // Linux answers with the counter's fields at the top level (as one
    // entry of a STAT_GET dump, without the STAT_COUNTER table around it);
    // the table form is accepted too.
    if (auto hw = a.Nested(kAttrStatHwcounters)) {
      got = true;
      return ParseHwCounters(*hw, &out);
    }
    auto table = a.Nested(kAttrStatCounter);
    if (!table) return Status::Ok();
    return ForEachNested(*table, [&](std::uint16_t type, AttrView v) -> Status {
      if (type != kAttrStatCounterEntry) return Status::Ok();
      Status lst = line.ParseNested(v);
      if (!lst.ok()) return lst;
      if (line.U32(kAttrStatCounterId) != counter_id) return Status::Ok();
      auto hw = line.Nested(kAttrStatHwcounters);
      if (!hw) return Malformed("bound counter entry");
      got = true;
      return ParseHwCounters(*hw, &out);
    });
  });
  if (!st.ok()) return st.error();
  if (!got) return Malformed("STAT_GET answer for counter (no hw counters)");
  return out;
}

const char* QpTypeName(std::uint8_t type) {
  switch (type) {
    case 0:
      return "SMI";
    case 1:
      return "GSI";
    case 2:
      return "RC";
    case 3:
      return "UC";
    case 4:
      return "UD";
    case 5:
      return "RAW_IPV6";
    case 6:
      return "RAW_ETHERTYPE";
    case 8:
      return "RAW_PACKET";
    case 9:
      return "XRC_INI";
    case 10:
      return "XRC_TGT";
    case 0xff:
      return "DRIVER";
    default:
      return nullptr;
  }
}

const char* QpStateName(std::uint8_t state) {
  switch (state) {
    case 0:
      return "RESET";
    case 1:
      return "INIT";
    case 2:
      return "RTR";
    case 3:
      return "RTS";
    case 4:
      return "SQD";
    case 5:
      return "SQE";
    case 6:
      return "ERR";
    default:
      return nullptr;
  }
}

}  // namespace rnic::nl
