// rnic_fabric_tool: one fabric-probe connection from the command line, for
// the VM tests and for comparing with perftest. It connects to a responder
// (an exporter with --collector.fabric) exactly as the exporter's initiator
// does and prints the RTTs; with --private-data it sends those bytes instead
// of a valid hello, to see the responder refuse and count them.
//
//   rnic_fabric_tool --local 10.0.3.1 --remote 10.0.3.2 [--port 18530]
//       [--tos -1] [--ack-timeout 14] [--ops send,write,read] [--size 64]
//       [--count 100] [--timeout-ms 500] [--private-data 00ff...]
//
// Output, one line per operation:
//   send size=64 n=100 failed=0 min_us=.. p50_us=.. p99_us=.. max_us=..
// or "connect_failed event=<rdma_cm event> detail=..". Exit: 0 all ok,
// 1 connect failed, 2 bad usage, 3 a probe failed.
//
//   rnic_fabric_tool --exchange HOST:PORT [--config FILE]
// fetches a peer exporter's /fabric/addresses as the collector does, with
// the exchange settings of FILE's fabric: section (https, TLS, basic auth),
// and prints the answer, or "exchange_failed: <host:port>: <step>: <why>"
// (exit 1); settings that do not load exit 2.
#include <signal.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "collectors/fabric/exchange_client.h"
#include "collectors/fabric/fabric_config.h"
#include "collectors/fabric/rc_link.h"

namespace {

using rnic::fabric::ConnectFailure;
using rnic::fabric::ConnectSpec;
using rnic::fabric::PingResult;
using rnic::fabric::RcLink;
using rnic::probe::Operation;

int Usage(const char* why) {
  std::fprintf(stderr,
               "rnic_fabric_tool: %s\nusage: rnic_fabric_tool --local IP "
               "--remote IP [--port N] [--tos N] [--ack-timeout N] [--ops "
               "send,write,read] [--size N] [--count N] [--timeout-ms N] "
               "[--private-data HEX]\n",
               why);
  return 2;
}

bool ToInt(const char* s, int& out) {
  const char* end = s + std::strlen(s);
  auto [p, ec] = std::from_chars(s, end, out);
  return ec == std::errc() && p == end;
}

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

int Exchange(const std::string& target, const std::string& config_file) {
  using namespace rnic::fabric;
  YAML::Node section;
  if (!config_file.empty()) {
    try {
      section = YAML::LoadFile(config_file)["fabric"];
    } catch (const YAML::Exception& e) {
      std::fprintf(stderr, "rnic_fabric_tool: %s: %s\n", config_file.c_str(),
                   e.what());
      return 2;
    }
  }
  auto cfg = ParseFabricConfig(section);
  if (!cfg) return Usage(cfg.error().message.c_str());
  auto hp = SplitHostPort(target);
  if (!hp) return Usage(("--exchange: " + hp.error().message).c_str());
  auto client = ExchangeClient::Create(*cfg);
  if (!client) return Usage(client.error().message.c_str());
  auto body = (*client)->Get(hp->first,
                             hp->second != 0 ? hp->second : cfg->exchange_port,
                             "/fabric/addresses", std::chrono::seconds(10));
  if (!body) {
    std::printf("exchange_failed: %s\n", body.error().ToString().c_str());
    return 1;
  }
  std::printf("%s\n", body->c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc >= 3 && std::string(argv[1]) == "--exchange") {
    if (argc == 3) return Exchange(argv[2], "");
    if (argc == 5 && std::string(argv[3]) == "--config")
      return Exchange(argv[2], argv[4]);
    return Usage("--exchange HOST:PORT [--config FILE]");
  }
  ConnectSpec spec;
  spec.port = rnic::fabric::kDefaultPort;
  spec.ack_timeout = 14;
  std::vector<Operation> ops = {Operation::kSend, Operation::kWrite};
  int size = 64;
  int count = 100;
  int timeout_ms = 500;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) return Usage(("missing value of " + a).c_str());
    const char* v = argv[++i];
    if (a == "--local") {
      spec.local_ip = v;
    } else if (a == "--remote") {
      spec.remote_ip = v;
    } else if (a == "--port") {
      if (!ToInt(v, spec.port) || spec.port < 1 || spec.port > 65535)
        return Usage("bad --port");
    } else if (a == "--tos") {
      if (!ToInt(v, spec.tos) || spec.tos < -1 || spec.tos > 255)
        return Usage("bad --tos");
    } else if (a == "--ack-timeout") {
      if (!ToInt(v, spec.ack_timeout) || spec.ack_timeout < -1 ||
          spec.ack_timeout > 31)
        return Usage("bad --ack-timeout");
    } else if (a == "--size") {
      if (!ToInt(v, size) || size < 1 ||
          size > static_cast<int>(rnic::fabric::kMaxMessage))
        return Usage("bad --size");
    } else if (a == "--count") {
      if (!ToInt(v, count) || count < 1 || count > 1000000)
        return Usage("bad --count");
    } else if (a == "--timeout-ms") {
      if (!ToInt(v, timeout_ms) || timeout_ms < 1)
        return Usage("bad --timeout-ms");
    } else if (a == "--ops") {
      ops.clear();
      std::string list = v;
      std::size_t start = 0;
      while (start <= list.size()) {
        const auto comma = std::min(list.find(',', start), list.size());
        const std::string op = list.substr(start, comma - start);
        if (op == "send") {
          ops.push_back(Operation::kSend);
        } else if (op == "write") {
          ops.push_back(Operation::kWrite);
        } else if (op == "read") {
          ops.push_back(Operation::kRead);
        } else {
          return Usage("bad --ops");
        }
        start = comma + 1;
      }
    } else if (a == "--private-data") {
      const std::string hex = v;
      if (hex.size() % 2 != 0 || hex.size() > 2 * 56)
        return Usage("bad --private-data (hex, at most 56 bytes)");
      std::vector<std::uint8_t> bytes;
      for (std::size_t k = 0; k < hex.size(); k += 2) {
        unsigned b = 0;
        auto [p, ec] =
            std::from_chars(hex.data() + k, hex.data() + k + 2, b, 16);
        if (ec != std::errc() || p != hex.data() + k + 2)
          return Usage("bad --private-data");
        bytes.push_back(static_cast<std::uint8_t>(b));
      }
      spec.private_data = std::move(bytes);
    } else {
      return Usage(("unknown flag " + a).c_str());
    }
  }
  if (spec.local_ip.empty() || spec.remote_ip.empty())
    return Usage("--local and --remote are required");
  spec.max_size = static_cast<std::uint32_t>(size);
  spec.ops = 0;
  for (auto op : ops) {
    spec.ops |= op == Operation::kSend    ? rnic::fabric::kOpSend
                : op == Operation::kWrite ? rnic::fabric::kOpWrite
                                          : rnic::fabric::kOpRead;
  }
  ConnectFailure failure;
  auto link = RcLink::Connect(spec, failure);
  if (!link) {
    std::printf("connect_failed event=%s detail=\"%s\"\n",
                failure.event.c_str(), failure.detail.c_str());
    return 1;
  }
  // As the exporter's rounds: the first ping wakes the peer, untimed.
  if (const auto w = link->WarmUp(ops.front(), static_cast<std::uint32_t>(size),
                                  std::chrono::milliseconds(timeout_ms));
      w.kind != PingResult::Kind::kOk) {
    std::printf(
        "%s size=%d n=0 failed=1 status=%s\n",
        rnic::probe::OperationName(ops.front()), size,
        w.kind == PingResult::Kind::kTimeout ? "timeout" : w.status.c_str());
    return 3;
  }
  int rc = 0;
  for (auto op : ops) {
    std::vector<double> rtts;
    int failed = 0;
    std::string status;
    for (int i = 0; i < count && link; ++i) {
      const auto r = link->Ping(op, static_cast<std::uint32_t>(size),
                                std::chrono::milliseconds(timeout_ms));
      if (r.kind == PingResult::Kind::kOk) {
        rtts.push_back(r.seconds * 1e6);
        continue;
      }
      ++failed;
      status = r.kind == PingResult::Kind::kTimeout ? "timeout" : r.status;
      link.reset();  // the QP is in an unknown state: stop here
    }
    std::printf("%s size=%d n=%zu failed=%d", rnic::probe::OperationName(op),
                size, rtts.size(), failed);
    if (!rtts.empty()) {
      std::printf(" min_us=%.2f p50_us=%.2f p99_us=%.2f max_us=%.2f",
                  Quantile(rtts, 0), Quantile(rtts, 0.5), Quantile(rtts, 0.99),
                  Quantile(rtts, 1));
    }
    if (failed) std::printf(" status=%s", status.c_str());
    std::printf("\n");
    if (failed) rc = 3;
    if (!link) break;
  }
  return rc;
}
