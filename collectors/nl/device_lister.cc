#include "collectors/nl/device_lister.h"

#include "collectors/nl/rdma_source.h"

namespace rnic::nl {

host::NetlinkDeviceLister MakeDeviceLister(TransportFactory open) {
  return
      [open = std::move(open)]() -> Result<std::vector<host::NetlinkDevice>> {
        // The model asks only when the host changed: a socket for this one
        // dump, closed after it, so the process holds no netlink socket of its
        // own for the model (the collectors keep theirs).
        auto t = open();
        if (!t.ok()) return t.error();
        RdmaNetlinkSource src(**t);
        auto devs = src.Devices();
        if (!devs.ok()) return devs.error();
        std::vector<host::NetlinkDevice> out;
        out.reserve(devs->size());
        for (const auto& d : *devs) {
          out.push_back(host::NetlinkDevice{d.index, d.name, d.num_ports});
        }
        return out;
      };
}

}  // namespace rnic::nl
