// Strict reading of rust bincode 1.x in its default configuration, the encoding filecoin-ffi gives vanilla
// proofs (PoSt sector proofs, SnapDeals partition proofs): integers little-endian, Vec lengths and usize as
// u64, enum variants as a u32 tag, [u8; 32] domain values without a length.
//
// Every value is read at a known position and every failure is a cuzk::input_error of one form:
//   "<source>: <context>, <context>, <field> at byte <offset>: <what>"
// where the contexts are what the caller is inside of (a sector, a partition, a challenge, a path level),
// pushed and popped with context_scope. Lengths are compared with what the caller expects before the caller
// allocates, so a corrupted length never turns into a large allocation.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/c1/seal_commit_phase1.hpp"

namespace cuzk::bincode {

class reader {
public:
    reader(std::span<const uint8_t> in, std::string_view source) : in_(in), source_(source) {}

    uint64_t u64(std::string_view field);
    uint32_t u32(std::string_view field);
    // 32 bytes that must be a canonical field element (little-endian value below r): every domain value of
    // these proofs becomes a circuit variable, where a larger one has no representation.
    c1::domain_t domain(std::string_view field);
    // A Vec length that the shape fixes.
    void length(std::string_view field, uint64_t expected);
    // Refuses anything after the last value.
    void finish(std::string_view field);

    size_t position() const { return pos_; }
    [[noreturn]] void fail(size_t at, std::string_view field, const std::string& what) const;

    // The context named by errors raised while it lives; set() replaces its text (a loop's index).
    class context_scope {
    public:
        context_scope(reader& r, std::string text) : r_(r), slot_(r.context_.size()) {
            r_.context_.push_back(std::move(text));
        }
        ~context_scope() { r_.context_.resize(slot_); }
        context_scope(const context_scope&) = delete;
        context_scope& operator=(const context_scope&) = delete;
        void set(std::string text) { r_.context_[slot_] = std::move(text); }

    private:
        reader& r_;
        size_t slot_;
    };

private:
    const uint8_t* take(size_t n, std::string_view field);

    std::span<const uint8_t> in_;
    std::string_view source_;
    size_t pos_ = 0;
    std::vector<std::string> context_;
};

}  // namespace cuzk::bincode
