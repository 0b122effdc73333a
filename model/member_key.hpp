// An object member's key. Keys come from a small vocabulary (field names,
// label keys, data keys), so a MemberKey is one pointer to a process-wide
// interned copy of its text: 8 bytes in a member instead of a std::string's
// 32, and no heap block per key. Contract: a MemberKey reads as a const
// std::string (str(), view(), size(), empty(), implicit conversions to
// both, comparisons); equal interned keys share one address; interning is
// thread-safe and bounded (long keys, and any new key once the table is
// full, are owned by their MemberKey instead, so hostile input costs memory
// per object, never forever).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace model {

class MemberKey {
 public:
  MemberKey() : bits_(reinterpret_cast<std::uintptr_t>(&empty_text())) {}
  MemberKey(std::string_view text) : bits_(make(text)) {}  // NOLINT(google-explicit-constructor): pairs
  MemberKey(const std::string& text) : MemberKey(std::string_view(text)) {}  // NOLINT(google-explicit-constructor)
  MemberKey(const char* text) : MemberKey(std::string_view(text)) {}         // NOLINT(google-explicit-constructor)
  MemberKey(const MemberKey& other) : bits_(other.owned() ? make_owned(other.str()) : other.bits_) {}
  MemberKey(MemberKey&& other) noexcept : bits_(other.bits_) { other.bits_ = MemberKey().bits_; }
  MemberKey& operator=(const MemberKey& other);
  MemberKey& operator=(MemberKey&& other) noexcept;
  ~MemberKey() { release(); }

  const std::string& str() const { return *reinterpret_cast<const std::string*>(bits_ & ~std::uintptr_t{1}); }
  operator const std::string&() const { return str(); }  // NOLINT(google-explicit-constructor)
  operator std::string_view() const { return str(); }    // NOLINT(google-explicit-constructor)
  std::string_view view() const { return str(); }

  std::size_t size() const { return str().size(); }
  bool empty() const { return str().empty(); }

  // True when this key shares the interned copy (for tests and accounting).
  bool interned() const { return !owned(); }

  friend bool operator==(const MemberKey& a, const MemberKey& b) {
    // Two interned keys are equal exactly when they share the copy.
    if (!a.owned() && !b.owned()) return a.bits_ == b.bits_;
    return a.view() == b.view();
  }
  friend bool operator==(const MemberKey& a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const MemberKey& a, const std::string& b) { return a.view() == b; }
  friend bool operator==(const MemberKey& a, const char* b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(const MemberKey& a, const MemberKey& b) { return a.view() <=> b.view(); }
  friend std::strong_ordering operator<=>(const MemberKey& a, std::string_view b) { return a.view() <=> b; }
  friend std::strong_ordering operator<=>(const MemberKey& a, const std::string& b) { return a.view() <=> b; }
  friend std::strong_ordering operator<=>(const MemberKey& a, const char* b) { return a.view() <=> b; }
  friend std::string operator+(const MemberKey& a, std::string_view b) { return std::string(a.view()) += b; }
  friend std::string operator+(std::string_view a, const MemberKey& b) { return std::string(a) += b.view(); }
  friend std::string operator+(const MemberKey& a, const char* b) { return std::string(a.view()) += b; }
  friend std::string operator+(const char* a, const MemberKey& b) { return std::string(a) += b.view(); }
  friend std::string operator+(const MemberKey& a, const std::string& b) { return std::string(a.view()) += b; }
  friend std::string operator+(const std::string& a, const MemberKey& b) { return std::string(a) += b.view(); }

 private:
  bool owned() const { return (bits_ & 1) != 0; }
  void release();
  static const std::string& empty_text();
  static std::uintptr_t make(std::string_view text);
  static std::uintptr_t make_owned(std::string_view text);

  std::uintptr_t bits_;  // a const std::string*; low bit set when this MemberKey owns it
};

}  // namespace model
