// The host model's view of RDMA netlink: one RDMA_NLDEV_CMD_GET dump that
// maps device names to the indices every other request needs. Each call opens
// a socket for the dump and closes it: the model asks only when the host
// changed, and never shares a socket with a collector running in parallel.
#pragma once

#include <memory>

#include "collectors/host/host_model.h"
#include "collectors/nl/transport.h"

namespace rnic::nl {

using TransportFactory =
    std::function<Result<std::shared_ptr<NetlinkTransport>>()>;

[[nodiscard]] host::NetlinkDeviceLister MakeDeviceLister(TransportFactory open);

}  // namespace rnic::nl
