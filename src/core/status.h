// Status and StatusOr: the error type of everything that can fail on input.
//
// A Status is either OK or carries a code and a message. The message names the
// file, the op or the argument and says what is wrong; callers add context with
// Status::WithContext as the error travels up. Internal invariants use GO_CHECK.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

namespace graphopt {

enum class StatusCode { kOk = 0, kInvalidArgument, kNotFound, kParseError, kFailedPrecondition, kInternal, kCancelled, kIoError, kOutOfMemory };

class Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }
  // Returns this status with "context: " prepended to the message (OK stays OK).
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }
  std::string ToString() const { return ok() ? "OK" : message_; }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status InvalidArgument(std::string m) { return Status(StatusCode::kInvalidArgument, std::move(m)); }
inline Status NotFound(std::string m) { return Status(StatusCode::kNotFound, std::move(m)); }
inline Status ParseError(std::string m) { return Status(StatusCode::kParseError, std::move(m)); }
inline Status FailedPrecondition(std::string m) { return Status(StatusCode::kFailedPrecondition, std::move(m)); }
inline Status InternalError(std::string m) { return Status(StatusCode::kInternal, std::move(m)); }
inline Status IoError(std::string m) { return Status(StatusCode::kIoError, std::move(m)); }
inline Status Cancelled(std::string m) { return Status(StatusCode::kCancelled, std::move(m)); }

[[noreturn]] inline void CheckFailed(const char* file, int line, const char* cond, const std::string& msg) {
  std::fprintf(stderr, "internal error: %s:%d: check failed: %s %s\n", file, line, cond, msg.c_str());
  std::abort();
}

// StatusOr<T> holds a T or a non-OK Status.
template <typename T>
class StatusOr {
 public:
  StatusOr(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design
    if (status_.ok()) CheckFailed(__FILE__, __LINE__, "!status.ok()", "StatusOr built from an OK status");
  }
  StatusOr(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }
  T& value() & {
    if (!ok()) CheckFailed(__FILE__, __LINE__, "ok()", status_.message());
    return *value_;
  }
  const T& value() const& {
    if (!ok()) CheckFailed(__FILE__, __LINE__, "ok()", status_.message());
    return *value_;
  }
  T&& value() && {
    if (!ok()) CheckFailed(__FILE__, __LINE__, "ok()", status_.message());
    return std::move(*value_);
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace graphopt

#define GO_CHECK(cond)                                                   \
  do {                                                                   \
    if (!(cond)) ::graphopt::CheckFailed(__FILE__, __LINE__, #cond, ""); \
  } while (0)
#define GO_CHECK_MSG(cond, msg)                                             \
  do {                                                                      \
    if (!(cond)) ::graphopt::CheckFailed(__FILE__, __LINE__, #cond, (msg)); \
  } while (0)

#define GO_CONCAT_INNER(a, b) a##b
#define GO_CONCAT(a, b) GO_CONCAT_INNER(a, b)

#define GO_RETURN_IF_ERROR(expr)              \
  do {                                        \
    ::graphopt::Status _go_status = (expr);   \
    if (!_go_status.ok()) return _go_status;  \
  } while (0)

#define GO_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                             \
  if (!tmp.ok()) return tmp.status();            \
  lhs = std::move(tmp).value()

#define GO_ASSIGN_OR_RETURN(lhs, expr) GO_ASSIGN_OR_RETURN_IMPL(GO_CONCAT(_go_statusor_, __LINE__), lhs, expr)
