// RDMA netlink (NETLINK_RDMA, client NLDEV) numbers, written down by us.
// Why not <rdma/rdma_netlink.h>: Debian 12's linux-libc-dev has 6.1 headers,
// and we want to recognise attributes of newer kernels (up to 6.15+) too.
// Enum values are ABI: the kernel appends and never renumbers.
#pragma once

#include <cstdint>

namespace rnic::nl {

// Netlink protocol number of the RDMA subsystem (linux/netlink.h).
inline constexpr int kNetlinkRdma = 20;

// Message type = (client << 10) + op. Only the NLDEV client is used here.
inline constexpr std::uint16_t kClientNldev = 5;
[[nodiscard]] constexpr std::uint16_t MsgType(std::uint16_t op) {
  return static_cast<std::uint16_t>((kClientNldev << 10) + op);
}
[[nodiscard]] constexpr std::uint16_t MsgOp(std::uint16_t type) {
  return static_cast<std::uint16_t>(type & ((1u << 10) - 1));
}

// enum rdma_nldev_command.
enum Cmd : std::uint16_t {
  kCmdGet = 1,
  kCmdSet = 2,
  kCmdNewLink = 3,
  kCmdDelLink = 4,
  kCmdPortGet = 5,
  kCmdSysGet = 6,
  kCmdSysSet = 7,
  kCmdResGet = 9,
  kCmdResQpGet = 10,
  kCmdResCmIdGet = 11,
  kCmdResCqGet = 12,
  kCmdResMrGet = 13,
  kCmdResPdGet = 14,
  kCmdGetChardev = 15,
  kCmdStatSet = 16,
  kCmdStatGet = 17,
  kCmdStatDel = 18,
  kCmdResQpGetRaw = 19,
  kCmdResCqGetRaw = 20,
  kCmdResMrGetRaw = 21,
  kCmdResCtxGet = 22,
  kCmdResSrqGet = 23,
  kCmdStatGetStatus = 24,  // Linux >= 5.16
  kCmdResSrqGetRaw = 25,
  kCmdNewDev = 26,
  kCmdDelDev = 27,
  kCmdMonitor = 28,
  kCmdFrmrPoolsGet = 29,
  kCmdFrmrPoolsSet = 30,
};

// enum rdma_nldev_attr (RDMA_NLDEV_ATTR_PAD shares 0 with UNSPEC).
enum Attr : std::uint16_t {
  kAttrUnspec = 0,
  kAttrDevIndex = 1,              // u32
  kAttrDevName = 2,               // string
  kAttrPortIndex = 3,             // u32 (GET: number of ports)
  kAttrCapFlags = 4,              // u64
  kAttrFwVersion = 5,             // string
  kAttrNodeGuid = 6,              // u64
  kAttrSysImageGuid = 7,          // u64
  kAttrSubnetPrefix = 8,          // u64
  kAttrLid = 9,                   // u32
  kAttrSmLid = 10,                // u32
  kAttrLmc = 11,                  // u8
  kAttrPortState = 12,            // u8
  kAttrPortPhysState = 13,        // u8
  kAttrDevNodeType = 14,          // u8
  kAttrResSummary = 15,           // nested
  kAttrResSummaryEntry = 16,      // nested
  kAttrResSummaryEntryName = 17,  // string
  kAttrResSummaryEntryCurr = 18,  // u64
  kAttrResQp = 19,                // nested
  kAttrResQpEntry = 20,           // nested
  kAttrResLqpn = 21,              // u32
  kAttrResRqpn = 22,              // u32
  kAttrResRqPsn = 23,             // u32
  kAttrResSqPsn = 24,             // u32
  kAttrResPathMigState = 25,      // u8
  kAttrResType = 26,              // u8
  kAttrResState = 27,             // u8
  kAttrResPid = 28,               // u32
  kAttrResKernName = 29,          // string
  kAttrResCmId = 30,              // nested
  kAttrResCmIdEntry = 31,         // nested
  kAttrResPs = 32,                // u32
  kAttrResSrcAddr = 33,           // binary
  kAttrResDstAddr = 34,           // binary
  kAttrResCq = 35,                // nested
  kAttrResCqEntry = 36,           // nested
  kAttrResCqe = 37,               // u32
  kAttrResUsecnt = 38,            // u64
  kAttrResPollCtx = 39,           // u8
  kAttrResMr = 40,                // nested
  kAttrResMrEntry = 41,           // nested
  kAttrResRkey = 42,              // u32
  kAttrResLkey = 43,              // u32
  kAttrResIova = 44,              // u64
  kAttrResMrlen = 45,             // u64
  kAttrResPd = 46,                // nested
  kAttrResPdEntry = 47,           // nested
  kAttrResLocalDmaLkey = 48,      // u32
  kAttrResUnsafeGlobalRkey = 49,  // u32
  kAttrNdevIndex = 50,            // u32
  kAttrNdevName = 51,             // string
  kAttrDriver = 52,               // nested
  kAttrDriverEntry = 53,          // nested
  kAttrDriverString = 54,         // string
  kAttrDriverPrintType = 55,      // u8
  kAttrDriverS32 = 56,
  kAttrDriverU32 = 57,
  kAttrDriverS64 = 58,
  kAttrDriverU64 = 59,
  kAttrResPdn = 60,                   // u32
  kAttrResCqn = 61,                   // u32
  kAttrResMrn = 62,                   // u32
  kAttrResCmIdn = 63,                 // u32
  kAttrResCtxn = 64,                  // u32
  kAttrLinkType = 65,                 // string
  kAttrSysNetnsMode = 66,             // u8
  kAttrDevProtocol = 67,              // string
  kAttrNetNsFd = 68,                  // u32
  kAttrChardevType = 69,              // string
  kAttrChardevName = 70,              // string
  kAttrChardevAbi = 71,               // u64
  kAttrChardev = 72,                  // u64
  kAttrUverbsDriverId = 73,           // u64
  kAttrStatMode = 74,                 // u32
  kAttrStatRes = 75,                  // u32
  kAttrStatAutoModeMask = 76,         // u32
  kAttrStatCounter = 77,              // nested
  kAttrStatCounterEntry = 78,         // nested
  kAttrStatCounterId = 79,            // u32
  kAttrStatHwcounters = 80,           // nested
  kAttrStatHwcounterEntry = 81,       // nested
  kAttrStatHwcounterEntryName = 82,   // string
  kAttrStatHwcounterEntryValue = 83,  // u64
  kAttrDevDim = 84,                   // u8
  kAttrResRaw = 85,                   // binary
  kAttrResCtx = 86,                   // nested
  kAttrResCtxEntry = 87,              // nested
  kAttrResSrq = 88,                   // nested
  kAttrResSrqEntry = 89,              // nested
  kAttrResSrqn = 90,                  // u32
  kAttrMinRange = 91,                 // u32
  kAttrMaxRange = 92,                 // u32
  kAttrSysCopyOnFork = 93,            // u8
  kAttrStatHwcounterIndex = 94,       // u32
  kAttrStatHwcounterDynamic = 95,     // u8 (optional counter: 1 = enabled)
  kAttrSysPrivilegedQkeyMode = 96,    // u8
  kAttrDriverDetails = 97,            // u8
  kAttrResSubtype = 98,               // string
  kAttrDevType = 99,                  // u8
  kAttrParentName = 100,              // string
  kAttrNameAssignType = 101,          // u8
  kAttrEventType = 102,               // u8
  kAttrSysMonitorMode = 103,          // u8
  kAttrStatOpcounterEnabled = 104,    // u8
  // Newer attributes (FRMR pools, ...) are not read: the parser ignores any
  // number at or above kAttrKnownEnd.
  kAttrKnownEnd = 105,
};

// enum rdma_nl_counter_mode / rdma_nl_counter_mask.
enum CounterMode : std::uint32_t {
  kCounterModeNone = 0,
  kCounterModeAuto = 1,
  kCounterModeManual = 2,
};

// enum ib_qp_type values the kernel reports in RES_TYPE.
[[nodiscard]] const char* QpTypeName(std::uint8_t type);
// enum ib_qp_state values in RES_STATE.
[[nodiscard]] const char* QpStateName(std::uint8_t state);

}  // namespace rnic::nl
