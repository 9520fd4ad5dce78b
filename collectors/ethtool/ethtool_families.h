// Families of the ethtool collector, declared once
// (collectors/metrics/family.h).
#pragma once

#include "collectors/metrics/family.h"

namespace rnic::ethtool::families {

using prometheus::MetricType;

inline constexpr char kPort[] = "device,port,netdev";
inline constexpr char kLane[] = "device,port,netdev,lane";

// FEC (ETHTOOL_MSG_FEC_GET with ETHTOOL_FLAG_STATS).
inline constexpr FamilyDesc kFecActive{
    "rnic_fec_active_mode_info", MetricType::Gauge, "device,port,netdev,mode",
    "Active FEC mode of the link (ETHTOOL_A_FEC_ACTIVE): none, rs (Reed-"
    "Solomon), baser (Fire code), llrs (low-latency RS). Always 1."};
inline constexpr FamilyDesc kFecCorrected{
    "rnic_fec_corrected_blocks_total", MetricType::Counter, kPort,
    "FEC blocks with errors the code corrected (ETHTOOL_A_FEC_STAT_CORRECTED, "
    "total). A rising rate often precedes a link flap."};
inline constexpr FamilyDesc kFecUncorrectable{
    "rnic_fec_uncorrectable_blocks_total", MetricType::Counter, kPort,
    "FEC blocks with errors the code could not correct "
    "(ETHTOOL_A_FEC_STAT_UNCORR, total): lost frames."};
inline constexpr FamilyDesc kFecCorrectedBits{
    "rnic_fec_corrected_bits_total", MetricType::Counter, kPort,
    "Bits FEC corrected (ETHTOOL_A_FEC_STAT_CORR_BITS, total)."};
inline constexpr FamilyDesc kFecLaneCorrected{
    "rnic_fec_lane_corrected_blocks_total", MetricType::Counter, kLane,
    "FEC corrected blocks of one lane (lane 0 first), where the driver counts "
    "per lane; their sum is rnic_fec_corrected_blocks_total."};
inline constexpr FamilyDesc kFecLaneUncorrectable{
    "rnic_fec_lane_uncorrectable_blocks_total", MetricType::Counter, kLane,
    "FEC uncorrectable blocks of one lane (lane 0 first), where the driver "
    "counts per lane."};

// Standard statistics groups (ETHTOOL_MSG_STATS_GET); one family per
// counter the driver offers, named from the IEEE/RFC attribute.
inline constexpr FamilyDesc kStdStat{
    "rnic_ethtool_<group_statistic>_total", MetricType::Counter, kPort,
    "Standard statistic of group eth_phy, eth_mac, eth_ctrl (IEEE 802.3 "
    "clause 30) or rmon (RFC 2819), from ETHTOOL_MSG_STATS_GET, e.g. "
    "rnic_ethtool_eth_phy_symbol_error_during_carrier_total; the HELP names "
    "the attribute (`ethtool -S <netdev> --all-groups`)."};

// The rmon group's frame-size histograms (ETHTOOL_A_STATS_GRP_HIST_RX/_TX),
// one series per bucket the driver defines.
inline constexpr FamilyDesc kRmonFrameSize{
    "rnic_ethtool_rmon_frame_size_packets_total", MetricType::Counter,
    "device,port,netdev,direction,low,high",
    "Frames received (direction rx, RFC 2819 etherStatsPkts<low>to<high>"
    "Octets) or transmitted (tx) whose length in octets lies in [low, high], "
    "both inclusive; high is \"+Inf\" for the driver's open-ended last "
    "bucket. Buckets are the driver's own (ethtool -S <netdev> --groups "
    "rmon); they do not overlap, so a sum over low and high is all frames "
    "the histogram counts."};

// Module diagnostics (ETHTOOL_MSG_MODULE_EEPROM_GET, SFF-8636 / CMIS /
// SFF-8472),
// read in the background at most once per --collector.ethtool.optics-interval.
inline constexpr FamilyDesc kOpticInfo{
    "rnic_optic_info", MetricType::Gauge,
    "device,port,netdev,type,spec,vendor,part_number,revision,serial",
    "Pluggable module in the port: SFF-8024 type (QSFP28, QSFP-DD, OSFP, "
    "SFP), management spec (sff8636, cmis, sff8472), vendor name, part "
    "number, revision and serial from upper page 00h (SFP: A0h). Always 1."};
inline constexpr FamilyDesc kOpticTemperature{
    "rnic_optic_temperature_celsius", MetricType::Gauge, kPort,
    "Module temperature (SFF-8636 bytes 22-23, CMIS bytes 14-15, SFF-8472 "
    "A2h bytes 96-97)."};
inline constexpr FamilyDesc kOpticVoltage{
    "rnic_optic_supply_voltage_volts", MetricType::Gauge, kPort,
    "Module 3.3 V supply voltage (SFF-8636 bytes 26-27, CMIS bytes 16-17, "
    "SFF-8472 A2h bytes 98-99)."};
inline constexpr FamilyDesc kOpticTxBias{
    "rnic_optic_tx_bias_amperes", MetricType::Gauge, kLane,
    "Laser bias current of a lane (lane 1 first)."};
inline constexpr FamilyDesc kOpticTxPower{
    "rnic_optic_tx_power_watts", MetricType::Gauge, kLane,
    "Transmitted optical power of a lane (lane 1 first)."};
inline constexpr FamilyDesc kOpticRxPower{
    "rnic_optic_rx_power_watts", MetricType::Gauge, kLane,
    "Received optical power of a lane (lane 1 first). Falling towards the "
    "low thresholds: dirty or failing fibre or far-end laser."};
inline constexpr char kLevel[] = "device,port,netdev,level";
inline constexpr FamilyDesc kOpticTemperatureThreshold{
    "rnic_optic_temperature_threshold_celsius", MetricType::Gauge, kLevel,
    "The module's own temperature threshold, by level (high_alarm, "
    "low_alarm, high_warning, low_warning; SFF-8636 page 03h, CMIS page 02h, "
    "SFF-8472 A2h bytes 0-39)."};
inline constexpr FamilyDesc kOpticVoltageThreshold{
    "rnic_optic_supply_voltage_threshold_volts", MetricType::Gauge, kLevel,
    "The module's own supply voltage threshold, by level."};
inline constexpr FamilyDesc kOpticTxBiasThreshold{
    "rnic_optic_tx_bias_threshold_amperes", MetricType::Gauge, kLevel,
    "The module's own laser bias threshold, by level (same for every lane)."};
inline constexpr FamilyDesc kOpticTxPowerThreshold{
    "rnic_optic_tx_power_threshold_watts", MetricType::Gauge, kLevel,
    "The module's own transmit power threshold, by level."};
inline constexpr FamilyDesc kOpticRxPowerThreshold{
    "rnic_optic_rx_power_threshold_watts", MetricType::Gauge, kLevel,
    "The module's own receive power threshold, by level."};
inline constexpr FamilyDesc kOpticFlag{
    "rnic_optic_alarm_flag", MetricType::Gauge,
    "device,port,netdev,quantity,level,lane",
    "1 when the module raised its latched flag for a quantity (temperature, "
    "supply_voltage, tx_bias, tx_power, rx_power) and level since the "
    "previous read (SFP: its SFF-8472 flag at the read), else 0; lane is "
    "\"\" for module-wide quantities."};
inline constexpr FamilyDesc kOpticReadTime{
    "rnic_optic_last_read_timestamp_seconds", MetricType::Gauge, kPort,
    "When the module EEPROM behind these values was last read (Unix time)."};

}  // namespace rnic::ethtool::families
