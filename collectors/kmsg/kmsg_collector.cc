#include "collectors/kmsg/kmsg_collector.h"

#include <spdlog/common.h>

#include "collectors/common/log_once.h"
#include "collectors/kmsg/kmsg_families.h"
#include "collectors/kmsg/kmsg_reader.h"

namespace rnic {
namespace {

class KmsgCollector : public Collector {
 public:
  KmsgCollector(std::unique_ptr<kmsg::KmsgReader> reader, Error open_error)
      : reader_(std::move(reader)), open_error_(std::move(open_error)) {}

  Status Collect(const ScrapeContext& /*ctx*/, MetricSet& out) override {
    // Without a readable log (no CAP_SYSLOG with dmesg_restrict=1, or no
    // /dev/kmsg in a container) the collector reports failure rather than
    // exporting zeros it never observed.
    if (!reader_) return open_error_;
    reader_->AppendTo(out, reader_->host()->Current().get());
    return Status::Ok();
  }

 private:
  std::unique_ptr<kmsg::KmsgReader> reader_;
  Error open_error_;
};

}  // namespace

CollectorSpec MakeKmsgCollectorSpec() {
  CollectorSpec spec;
  spec.name = "kmsg";
  spec.help =
      "CQ errors from the kernel log (mlx5 'CQ error on CQN .., syndrome ..'),"
      " read from --path.devkmsg starting at the end of the log when the "
      "exporter starts.";
  spec.default_enabled = true;
  spec.families = {&kmsg::families::kCqErrors, &kmsg::families::kRecords,
                   &kmsg::families::kRecordsLost};
  spec.factory =
      [](const CollectorArgs& args) -> Result<std::unique_ptr<Collector>> {
    // The wrong kind of file is a mistake in the flags: refused at start-up.
    // An unreadable log (a container without /dev/kmsg) is a warning below.
    if (Status st = kmsg::CheckKmsgPath(args.paths.devkmsg); !st) {
      return Error{"--path.devkmsg: " + st.error().message};
    }
    kmsg::KmsgReaderOptions o;
    o.path = args.paths.devkmsg;
    o.sysfs_root = args.paths.sysfs;
    if (args.shared) o.host = args.shared->host;
    auto r = kmsg::KmsgReader::Start(o);
    if (!r) {
      const std::string err = r.error().ToString();
      LogEvent(spdlog::level::warn, "kmsg",
               "kernel log unreadable: rnic_kernel_cq_errors_total unavailable",
               {{"err", err}});
      return std::unique_ptr<Collector>(
          std::make_unique<KmsgCollector>(nullptr, r.error()));
    }
    return std::unique_ptr<Collector>(
        std::make_unique<KmsgCollector>(std::move(*r), Error{}));
  };
  return spec;
}

}  // namespace rnic
