// rnic_cm_holder: an application's RDMA connections, held idle, for tests
// of the fabric probe's live peers (which read them from the kernel's
// rdma_cm ID dump).
//
//   rnic_cm_holder -s -a ADDR -p PORT          accept every connection, hold
//   rnic_cm_holder -c -a ADDR -p PORT [-n N]   open N RC connections, hold
//
// Both sides print "connected <n>" after each connection and hold them
// until SIGTERM or SIGINT; exit 1 when a connection cannot be made.
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

volatile sig_atomic_t g_stop = 0;
void OnSignal(int) { g_stop = 1; }

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "rnic_cm_holder: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

ibv_qp_init_attr QpAttr() {
  ibv_qp_init_attr a{};
  a.cap.max_send_wr = a.cap.max_recv_wr = 1;
  a.cap.max_send_sge = a.cap.max_recv_sge = 1;
  a.qp_type = IBV_QPT_RC;
  a.sq_sig_all = 1;
  return a;
}

rdma_addrinfo* Resolve(const std::string& addr, const std::string& port,
                       bool passive) {
  rdma_addrinfo hints{};
  hints.ai_port_space = RDMA_PS_TCP;
  if (passive) hints.ai_flags = RAI_PASSIVE;
  rdma_addrinfo* res = nullptr;
  if (rdma_getaddrinfo(addr.c_str(), port.c_str(), &hints, &res) != 0)
    Die("rdma_getaddrinfo");
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  bool server = false;
  bool client = false;
  std::string addr;
  std::string port = "7174";
  int n = 1;
  int opt;
  while ((opt = getopt(argc, argv, "sca:p:n:")) != -1) {
    switch (opt) {
      case 's':
        server = true;
        break;
      case 'c':
        client = true;
        break;
      case 'a':
        addr = optarg;
        break;
      case 'p':
        port = optarg;
        break;
      case 'n':
        n = std::atoi(optarg);
        break;
      default:
        return 2;
    }
  }
  if (server == client || addr.empty() || n < 1) {
    std::fprintf(stderr,
                 "usage: rnic_cm_holder -s|-c -a ADDR [-p PORT] [-n N]\n");
    return 2;
  }
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  std::vector<rdma_cm_id*> held;
  ibv_qp_init_attr attr = QpAttr();
  if (client) {
    for (int i = 0; i < n; ++i) {
      rdma_addrinfo* res = Resolve(addr, port, false);
      rdma_cm_id* id = nullptr;
      if (rdma_create_ep(&id, res, nullptr, &attr) != 0) Die("rdma_create_ep");
      rdma_freeaddrinfo(res);
      if (rdma_connect(id, nullptr) != 0) Die("rdma_connect");
      held.push_back(id);
      std::printf("connected %zu\n", held.size());
      std::fflush(stdout);
    }
    while (!g_stop) pause();
  } else {
    rdma_addrinfo* res = Resolve(addr, port, true);
    rdma_cm_id* listen = nullptr;
    if (rdma_create_ep(&listen, res, nullptr, &attr) != 0)
      Die("rdma_create_ep");
    rdma_freeaddrinfo(res);
    if (rdma_listen(listen, 16) != 0) Die("rdma_listen");
    while (!g_stop) {
      rdma_cm_id* id = nullptr;
      // Blocks until a request comes; a signal ends the wait with EINTR.
      if (rdma_get_request(listen, &id) != 0) {
        if (errno == EINTR) break;
        Die("rdma_get_request");
      }
      if (rdma_accept(id, nullptr) != 0) Die("rdma_accept");
      held.push_back(id);
      std::printf("connected %zu\n", held.size());
      std::fflush(stdout);
    }
  }
  // No rdma_disconnect(): it waits for the other side's reply, which a
  // peer that handles no events (this server) sends only when the CM
  // gives up, minutes later. The kernel disconnects what the process held
  // when it exits.
  std::printf("holding %zu, exiting\n", held.size());
  return 0;
}
