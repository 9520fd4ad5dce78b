// Errors as values at the kernel boundary: every source returns Result<T>
// so that a failing read costs one metric, never an exception unwinding a
// scrape.
#pragma once

#include <cerrno>
#include <string>
#include <utility>
#include <variant>

namespace rnic {

struct Error {
  std::string message;
  int errno_value = 0;  // 0 when the error did not come from a syscall

  [[nodiscard]] static Error FromErrno(std::string what, int err) {
    return Error{std::move(what), err};
  }
  // "what: strerror(errno)" for logs.
  [[nodiscard]] std::string ToString() const;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  Result(T value)
      : v_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
  Result(Error error)
      : v_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  [[nodiscard]] T& value() & { return std::get<0>(v_); }
  [[nodiscard]] const T& value() const& { return std::get<0>(v_); }
  [[nodiscard]] T&& value() && { return std::get<0>(std::move(v_)); }
  [[nodiscard]] const Error& error() const { return std::get<1>(v_); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Error> v_;
};

// Result<void>.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), ok_(false) {}  // NOLINT
  [[nodiscard]] static Status Ok() { return Status(); }
  [[nodiscard]] bool ok() const { return ok_; }
  explicit operator bool() const { return ok_; }
  [[nodiscard]] const Error& error() const { return error_; }

 private:
  Error error_;
  bool ok_ = true;
};

}  // namespace rnic
