// rnic_res_holder: holds a known set of verbs resources so tests can check
// that the exporter's resource metrics move by exactly that much.
//
//   rnic_res_holder -d DEV [-q QPS] [-c CQS] [-e CQE] [-m MRS] [-s MR_BYTES]
//                   [-r COMMAND]
//
// Opens DEV once (1 context, 1 PD), creates CQS CQs of CQE requested
// entries, QPS RC QPs (left in RESET, using the first CQ) and MRS MRs of
// MR_BYTES bytes each. Prints what the device actually granted as
// "key=value" lines (providers round CQ depths up), then runs COMMAND with
// the resources held (or waits for a line on stdin), frees everything and
// exits with COMMAND's status.
#include <infiniband/verbs.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "rnic_res_holder: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dev_name;
  int qps = 0, cqs = 1, cqe = 16, mrs = 0;
  std::size_t mr_bytes = 4096;
  const char* command = nullptr;
  int opt;
  while ((opt = getopt(argc, argv, "d:q:c:e:m:s:r:")) != -1) {
    switch (opt) {
      case 'd':
        dev_name = optarg;
        break;
      case 'q':
        qps = std::atoi(optarg);
        break;
      case 'c':
        cqs = std::atoi(optarg);
        break;
      case 'e':
        cqe = std::atoi(optarg);
        break;
      case 'm':
        mrs = std::atoi(optarg);
        break;
      case 's':
        mr_bytes = std::strtoull(optarg, nullptr, 0);
        break;
      case 'r':
        command = optarg;
        break;
      default:
        std::fprintf(stderr,
                     "usage: %s -d DEV [-q QPS] [-c CQS] [-e CQE] [-m MRS] "
                     "[-s MR_BYTES] [-r COMMAND]\n",
                     argv[0]);
        return 2;
    }
  }
  if (qps > 0 && cqs < 1) cqs = 1;  // QPs need a CQ

  int num = 0;
  ibv_device** list = ibv_get_device_list(&num);
  if (list == nullptr) Die("ibv_get_device_list");
  ibv_device* dev = nullptr;
  for (int i = 0; i < num; ++i) {
    if (dev_name.empty() || dev_name == ibv_get_device_name(list[i])) {
      dev = list[i];
      break;
    }
  }
  if (dev == nullptr) {
    std::fprintf(stderr, "rnic_res_holder: no device %s\n", dev_name.c_str());
    return 1;
  }
  ibv_context* ctx = ibv_open_device(dev);
  if (ctx == nullptr) Die("ibv_open_device");
  ibv_pd* pd = ibv_alloc_pd(ctx);
  if (pd == nullptr) Die("ibv_alloc_pd");

  std::vector<ibv_cq*> cq_list;
  long cqe_total = 0, cqe_max = 0;
  for (int i = 0; i < cqs; ++i) {
    ibv_cq* cq = ibv_create_cq(ctx, cqe, nullptr, nullptr, 0);
    if (cq == nullptr) Die("ibv_create_cq");
    cq_list.push_back(cq);
    cqe_total += cq->cqe;
    if (cq->cqe > cqe_max) cqe_max = cq->cqe;
  }
  std::vector<ibv_qp*> qp_list;
  for (int i = 0; i < qps; ++i) {
    ibv_qp_init_attr attr{};
    attr.send_cq = cq_list[0];
    attr.recv_cq = cq_list[0];
    attr.qp_type = IBV_QPT_RC;
    attr.cap.max_send_wr = 1;
    attr.cap.max_recv_wr = 1;
    attr.cap.max_send_sge = 1;
    attr.cap.max_recv_sge = 1;
    ibv_qp* qp = ibv_create_qp(pd, &attr);
    if (qp == nullptr) Die("ibv_create_qp");
    qp_list.push_back(qp);
  }
  std::vector<void*> bufs;
  std::vector<ibv_mr*> mr_list;
  for (int i = 0; i < mrs; ++i) {
    void* buf = nullptr;
    if (posix_memalign(&buf, 4096, mr_bytes) != 0) Die("posix_memalign");
    std::memset(buf, 0, mr_bytes);
    ibv_mr* mr = ibv_reg_mr(pd, buf, mr_bytes, IBV_ACCESS_LOCAL_WRITE);
    if (mr == nullptr) Die("ibv_reg_mr");
    bufs.push_back(buf);
    mr_list.push_back(mr);
  }
  std::printf(
      "device=%s\npid=%d\nctxs=1\npds=1\nqps=%d\ncqs=%d\ncqe_total=%ld\n"
      "cqe_max=%ld\nmrs=%d\nmr_bytes=%zu\n",
      ibv_get_device_name(dev), getpid(), qps, cqs, cqe_total, cqe_max, mrs,
      mr_bytes * static_cast<std::size_t>(mrs));
  std::fflush(stdout);

  int rc = 0;
  if (command != nullptr) {
    const int st = std::system(command);
    rc = WIFEXITED(st) ? WEXITSTATUS(st) : 1;
  } else {
    char line[16];
    (void)!std::fgets(line, sizeof(line), stdin);
  }

  for (ibv_mr* mr : mr_list) ibv_dereg_mr(mr);
  for (void* b : bufs) std::free(b);
  for (ibv_qp* qp : qp_list) ibv_destroy_qp(qp);
  for (ibv_cq* cq : cq_list) ibv_destroy_cq(cq);
  ibv_dealloc_pd(pd);
  ibv_close_device(ctx);
  ibv_free_device_list(list);
  return rc;
}
