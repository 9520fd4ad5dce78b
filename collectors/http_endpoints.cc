#include "collectors/http_endpoints.h"

namespace rnic {

void EndpointTable::Add(const std::string& path, EndpointHandler handler) {
  std::lock_guard g(mu_);
  handlers_[path] = std::move(handler);
}

void EndpointTable::Remove(const std::string& path) {
  std::lock_guard g(mu_);
  handlers_.erase(path);
}

EndpointHandler EndpointTable::Find(const std::string& path) const {
  std::lock_guard g(mu_);
  auto it = handlers_.find(path);
  return it == handlers_.end() ? EndpointHandler{} : it->second;
}

}  // namespace rnic
