#include "collectors/nl/attr_parser.h"

#include <cstring>

namespace rnic::nl {
namespace {

constexpr std::array<AttrKind, kAttrKnownEnd> MakePolicy() {
  std::array<AttrKind, kAttrKnownEnd> p{};
  using K = AttrKind;
  for (std::uint16_t t : {kAttrDevIndex,
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
                          kAttrStatHwcounterIndex}) {
    p[t] = K::kU32;
  }
  for (std::uint16_t t :
       {kAttrCapFlags, kAttrNodeGuid, kAttrSysImageGuid, kAttrSubnetPrefix,
        kAttrResSummaryEntryCurr, kAttrResUsecnt, kAttrResIova, kAttrResMrlen,
        kAttrDriverS64, kAttrDriverU64, kAttrChardevAbi, kAttrChardev,
        kAttrUverbsDriverId, kAttrStatHwcounterEntryValue}) {
    p[t] = K::kU64;
  }
  for (std::uint16_t t : {kAttrLmc,
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
                          kAttrStatOpcounterEnabled}) {
    p[t] = K::kU8;
  }
  for (std::uint16_t t :
       {kAttrDevName, kAttrFwVersion, kAttrResSummaryEntryName,
        kAttrResKernName, kAttrNdevName, kAttrDriverString, kAttrLinkType,
        kAttrDevProtocol, kAttrChardevType, kAttrChardevName,
        kAttrStatHwcounterEntryName, kAttrResSubtype, kAttrParentName}) {
    p[t] = K::kString;
  }
  for (std::uint16_t t : {kAttrResSummary,     kAttrResSummaryEntry,
                          kAttrResQp,          kAttrResQpEntry,
                          kAttrResCmId,        kAttrResCmIdEntry,
                          kAttrResCq,          kAttrResCqEntry,
                          kAttrResMr,          kAttrResMrEntry,
                          kAttrResPd,          kAttrResPdEntry,
                          kAttrDriver,         kAttrDriverEntry,
                          kAttrStatCounter,    kAttrStatCounterEntry,
                          kAttrStatHwcounters, kAttrStatHwcounterEntry,
                          kAttrResCtx,         kAttrResCtxEntry,
                          kAttrResSrq,         kAttrResSrqEntry}) {
    p[t] = K::kNested;
  }
  for (std::uint16_t t : {kAttrResSrcAddr, kAttrResDstAddr, kAttrResRaw}) {
    p[t] = K::kBinary;
  }
  return p;
}

constexpr std::array<AttrKind, kAttrKnownEnd> kPolicy = MakePolicy();

bool LengthFits(AttrKind kind, std::size_t len, const std::uint8_t* data) {
  switch (kind) {
    case AttrKind::kU8:
      return len >= 1;
    case AttrKind::kU16:
      return len >= 2;
    case AttrKind::kU32:
      return len >= 4;
    case AttrKind::kU64:
      return len >= 8;
    case AttrKind::kString:
      return len >= 1 && std::memchr(data, '\0', len) != nullptr;
    default:
      return true;
  }
}

}  // namespace

AttrKind PolicyKind(std::uint16_t type) {
  return type < kAttrKnownEnd ? kPolicy[type] : AttrKind::kUnknown;
}

Attrs::Attrs() : policy_(kPolicy) {}

Attrs::Attrs(AttrPolicy policy)
    : policy_(policy.size() <= kMaxPolicyAttrs
                  ? policy
                  : policy.first(kMaxPolicyAttrs)) {}

Status Attrs::ParseMessage(const nlmsghdr& msg) {
  if (msg.nlmsg_len < NLMSG_HDRLEN) {
    return Error{"netlink: short message", EBADMSG};
  }
  const auto* base = reinterpret_cast<const std::uint8_t*>(&msg);
  return Parse(base + NLMSG_HDRLEN, msg.nlmsg_len - NLMSG_HDRLEN);
}

Status Attrs::ParseNested(AttrView nest) { return Parse(nest.data, nest.len); }

Status Attrs::Parse(const std::uint8_t* data, std::size_t len) {
  if (++parse_ == 0) {  // wrapped: forget every earlier parse
    seen_.fill(0);
    parse_ = 1;
  }
  return detail::WalkAttrs(
      data, len, [&](std::uint16_t type, AttrView view) -> Status {
        const AttrKind kind =
            type < policy_.size() ? policy_[type] : AttrKind::kUnknown;
        if (kind == AttrKind::kUnknown) return Status::Ok();  // newer kernel
        if (!LengthFits(kind, view.len, view.data)) {
          return Error{"netlink: attribute " + std::to_string(type) +
                           " has a bad payload",
                       EBADMSG};
        }
        attrs_[type] = Slot{view.data, view.len};
        seen_[type] = parse_;
        return Status::Ok();
      });
}

std::optional<std::uint8_t> Attrs::U8(std::uint16_t type) const {
  if (!Is(type, AttrKind::kU8)) return std::nullopt;
  return attrs_[type].data[0];
}

std::optional<std::uint16_t> Attrs::U16(std::uint16_t type) const {
  if (!Is(type, AttrKind::kU16)) return std::nullopt;
  std::uint16_t v;
  std::memcpy(&v, attrs_[type].data, sizeof(v));
  return v;
}

std::optional<std::uint32_t> Attrs::U32(std::uint16_t type) const {
  if (!Is(type, AttrKind::kU32)) return std::nullopt;
  std::uint32_t v;
  std::memcpy(&v, attrs_[type].data, sizeof(v));
  return v;
}

std::optional<std::uint64_t> Attrs::U64(std::uint16_t type) const {
  if (!Is(type, AttrKind::kU64)) return std::nullopt;
  std::uint64_t v;
  std::memcpy(&v, attrs_[type].data, sizeof(v));
  return v;
}

std::optional<std::string_view> Attrs::Str(std::uint16_t type) const {
  if (!Is(type, AttrKind::kString)) return std::nullopt;
  const auto* p = reinterpret_cast<const char*>(attrs_[type].data);
  return std::string_view(p, ::strnlen(p, attrs_[type].len));
}

std::optional<AttrView> Attrs::Nested(std::uint16_t type) const {
  if (!Is(type, AttrKind::kNested)) return std::nullopt;
  return AttrView{attrs_[type].data, attrs_[type].len};
}

std::optional<AttrView> Attrs::Binary(std::uint16_t type) const {
  if (!Is(type, AttrKind::kBinary)) return std::nullopt;
  return AttrView{attrs_[type].data, attrs_[type].len};
}

}  // namespace rnic::nl
