// Standard base64 with padding (RFC 4648 section 4), the form HTTP basic
// auth uses (RFC 7617): decoded by the exporter's auth check, encoded by the
// fabric's address-exchange client.
#pragma once

#include <string>
#include <string_view>

namespace rnic {

[[nodiscard]] std::string EncodeBase64(std::string_view in);
// False on anything that is not canonical padded base64 (out then unusable).
[[nodiscard]] bool DecodeBase64(std::string_view in, std::string& out);

}  // namespace rnic
