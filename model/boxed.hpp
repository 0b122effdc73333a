// An optional value kept on the heap: the interface of std::optional that
// decoded objects use (has_value, bool, *, ->, reset, emplace, assignment
// from an optional), with value semantics (copies are deep).
// Why: large, rarely set settings (TLS, OAuth2, basic auth, authorization)
// made every decoded endpoint ~2.6 KB even when none was set; a box costs
// one pointer when empty. Contract: a Boxed<T> converts to std::optional<T>
// (a copy), so functions taking `const std::optional<T>&` still accept it.
#pragma once

#include <memory>
#include <optional>
#include <utility>

namespace model {

template <class T>
class Boxed {
 public:
  Boxed() = default;
  Boxed(std::nullopt_t) {}                                 // NOLINT(google-explicit-constructor): as std::optional
  Boxed(const T& v) : p_(std::make_unique<T>(v)) {}        // NOLINT(google-explicit-constructor)
  Boxed(T&& v) : p_(std::make_unique<T>(std::move(v))) {}  // NOLINT(google-explicit-constructor)
  Boxed(std::optional<T> v) {                              // NOLINT(google-explicit-constructor)
    if (v) p_ = std::make_unique<T>(std::move(*v));
  }
  Boxed(const Boxed& o) : p_(o.p_ ? std::make_unique<T>(*o.p_) : nullptr) {}
  Boxed(Boxed&&) noexcept = default;
  Boxed& operator=(const Boxed& o) {
    if (this != &o) p_ = o.p_ ? std::make_unique<T>(*o.p_) : nullptr;
    return *this;
  }
  Boxed& operator=(Boxed&&) noexcept = default;
  Boxed& operator=(std::nullopt_t) {
    p_.reset();
    return *this;
  }

  bool has_value() const { return p_ != nullptr; }
  explicit operator bool() const { return p_ != nullptr; }
  const T& operator*() const { return *p_; }
  T& operator*() { return *p_; }
  const T* operator->() const { return p_.get(); }
  T* operator->() { return p_.get(); }
  void reset() { p_.reset(); }
  template <class... A>
  T& emplace(A&&... args) {
    p_ = std::make_unique<T>(std::forward<A>(args)...);
    return *p_;
  }
  operator std::optional<T>() const {  // NOLINT(google-explicit-constructor): see the contract
    return p_ ? std::optional<T>(*p_) : std::nullopt;
  }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace model
