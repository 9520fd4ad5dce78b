#include "collectors/netlink/attr_parser.h"

#include <netlink/msg.h>

#include <cstring>
#include <string>

namespace rnic::nl {
namespace {

constexpr std::array<nla_policy, kAttrKnownEnd> MakeRdmaPolicy() {
  std::array<nla_policy, kAttrKnownEnd> p{};
  auto set = [&p](std::initializer_list<std::uint16_t> types,
                  std::uint16_t kind) {
    for (std::uint16_t t : types) p[t].type = kind;
  };
  set({kAttrDevIndex,
       kAttrPortIndex,
       kAttrLid,
       kAttrSmLid,
       kAttrResLqpn,
       kAttrResRqpn,
       kAttrResRqPsn,
       kAttrResSqPsn,
       kAttrResPid,
       kAttrResPs,
       kAttrResCqe,
       kAttrResRkey,
       kAttrResLkey,
       kAttrResLocalDmaLkey,
       kAttrResUnsafeGlobalRkey,
       kAttrNdevIndex,
       kAttrDriverU32,
       kAttrDriverS32,
       kAttrResPdn,
       kAttrResCqn,
       kAttrResMrn,
       kAttrResCmIdn,
       kAttrResCtxn,
       kAttrNetNsFd,
       kAttrStatMode,
       kAttrStatRes,
       kAttrStatAutoModeMask,
       kAttrStatCounterId,
       kAttrResSrqn,
       kAttrMinRange,
       kAttrMaxRange,
       kAttrStatHwcounterIndex},
      NLA_U32);
  set({kAttrCapFlags, kAttrNodeGuid, kAttrSysImageGuid, kAttrSubnetPrefix,
       kAttrResSummaryEntryCurr, kAttrResUsecnt, kAttrResIova, kAttrResMrlen,
       kAttrDriverS64, kAttrDriverU64, kAttrChardevAbi, kAttrChardev,
       kAttrUverbsDriverId, kAttrStatHwcounterEntryValue},
      NLA_U64);
  set({kAttrLmc,
       kAttrPortState,
       kAttrPortPhysState,
       kAttrDevNodeType,
       kAttrResPathMigState,
       kAttrResType,
       kAttrResState,
       kAttrResPollCtx,
       kAttrDriverPrintType,
       kAttrSysNetnsMode,
       kAttrDevDim,
       kAttrSysCopyOnFork,
       kAttrStatHwcounterDynamic,
       kAttrSysPrivilegedQkeyMode,
       kAttrDriverDetails,
       kAttrDevType,
       kAttrNameAssignType,
       kAttrEventType,
       kAttrSysMonitorMode,
       kAttrStatOpcounterEnabled},
      NLA_U8);
  set({kAttrDevName, kAttrFwVersion, kAttrResSummaryEntryName, kAttrResKernName,
       kAttrNdevName, kAttrDriverString, kAttrLinkType, kAttrDevProtocol,
       kAttrChardevType, kAttrChardevName, kAttrStatHwcounterEntryName,
       kAttrResSubtype, kAttrParentName},
      NLA_STRING);
  set({kAttrResSummary,     kAttrResSummaryEntry,
       kAttrResQp,          kAttrResQpEntry,
       kAttrResCmId,        kAttrResCmIdEntry,
       kAttrResCq,          kAttrResCqEntry,
       kAttrResMr,          kAttrResMrEntry,
       kAttrResPd,          kAttrResPdEntry,
       kAttrDriver,         kAttrDriverEntry,
       kAttrStatCounter,    kAttrStatCounterEntry,
       kAttrStatHwcounters, kAttrStatHwcounterEntry,
       kAttrResCtx,         kAttrResCtxEntry,
       kAttrResSrq,         kAttrResSrqEntry},
      NLA_NESTED);
  set({kAttrResSrcAddr, kAttrResDstAddr, kAttrResRaw}, NLA_BINARY);
  return p;
}

constexpr std::array<nla_policy, kAttrKnownEnd> kRdmaPolicy = MakeRdmaPolicy();

}  // namespace

AttrPolicy RdmaPolicy(std::uint16_t last) {
  return AttrPolicy(kRdmaPolicy)
      .first(std::min<std::size_t>(last + 1u, kRdmaPolicy.size()));
}

Attrs::Attrs(AttrPolicy policy)
    : policy_(policy.size() <= kMaxPolicyAttrs
                  ? policy
                  : policy.first(kMaxPolicyAttrs)) {}

Status Attrs::ParseMessage(const nlmsghdr& msg, std::size_t hdrlen) {
  // libnl's accessors take a non-const header; they only read.
  auto* nlh = const_cast<nlmsghdr*>(&msg);
  if (msg.nlmsg_len < NLMSG_HDRLEN ||
      nlmsg_datalen(nlh) < static_cast<int>(NLMSG_ALIGN(hdrlen))) {
    parsed_ = false;
    return Error{"netlink: short message", EBADMSG};
  }
  return Parse(
      reinterpret_cast<const std::uint8_t*>(
          nlmsg_attrdata(nlh, static_cast<int>(hdrlen))),
      static_cast<std::size_t>(nlmsg_attrlen(nlh, static_cast<int>(hdrlen))));
}

Status Attrs::Parse(const std::uint8_t* data, std::size_t len) {
  parsed_ = false;
  if (policy_.empty()) return Error{"netlink: empty policy", EINVAL};
  auto* head = reinterpret_cast<nlattr*>(const_cast<std::uint8_t*>(data));
  const int err = nla_parse(tb_.data(), static_cast<int>(policy_.size() - 1),
                            head, static_cast<int>(len), policy_.data());
  if (err < 0) {
    // -NLE_RANGE (payload shorter than its type) or -NLE_INVAL (string
    // without its NUL).
    return Error{"netlink: attribute has a bad payload", EBADMSG};
  }
  // nla_parse stops at an attribute that runs past the end and succeeds:
  // the framing must reach the end (fewer bytes than a header are padding).
  std::size_t off = 0;
  while (off + NLA_HDRLEN <= len) {
    const auto* a = reinterpret_cast<const nlattr*>(data + off);
    if (a->nla_len < NLA_HDRLEN || a->nla_len > len - off) {
      return Error{"netlink: bad attribute length", EBADMSG};
    }
    off += NLA_ALIGN(a->nla_len);
  }
  parsed_ = true;
  return Status::Ok();
}

std::optional<std::uint8_t> Attrs::U8(std::uint16_t type) const {
  const nlattr* a = Get(type, NLA_U8);
  if (a == nullptr) return std::nullopt;
  return nla_get_u8(a);
}

std::optional<std::uint16_t> Attrs::U16(std::uint16_t type) const {
  const nlattr* a = Get(type, NLA_U16);
  if (a == nullptr) return std::nullopt;
  return nla_get_u16(a);
}

std::optional<std::uint32_t> Attrs::U32(std::uint16_t type) const {
  const nlattr* a = Get(type, NLA_U32);
  if (a == nullptr) return std::nullopt;
  return nla_get_u32(a);
}

std::optional<std::uint64_t> Attrs::U64(std::uint16_t type) const {
  const nlattr* a = Get(type, NLA_U64);
  if (a == nullptr) return std::nullopt;
  return nla_get_u64(a);
}

std::optional<std::string_view> Attrs::Str(std::uint16_t type) const {
  const nlattr* a = Get(type, NLA_STRING);
  if (a == nullptr) return std::nullopt;
  // The policy made sure the payload ends in a NUL.
  return std::string_view(nla_get_string(a));
}

std::optional<AttrView> Attrs::Nested(std::uint16_t type) const {
  const nlattr* a = Get(type, NLA_NESTED);
  if (a == nullptr) return std::nullopt;
  return AttrView{static_cast<const std::uint8_t*>(nla_data(a)),
                  static_cast<std::uint16_t>(nla_len(a))};
}

std::optional<AttrView> Attrs::Binary(std::uint16_t type) const {
  const nlattr* a = Get(type, NLA_BINARY);
  if (a == nullptr) return std::nullopt;
  return AttrView{static_cast<const std::uint8_t*>(nla_data(a)),
                  static_cast<std::uint16_t>(nla_len(a))};
}

}  // namespace rnic::nl
