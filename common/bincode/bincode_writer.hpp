// Writing rust bincode 1.x in its default configuration (bincode_reader.hpp): the encoders of vanilla proofs,
// for tests and for tools that make inputs.
#pragma once

#include <cstdint>
#include <vector>

#include "common/c1/seal_commit_phase1.hpp"

namespace cuzk::bincode {

// Appends values in the encoding the reader reads.
class writer {
public:
    explicit writer(std::vector<uint8_t>& out) : out_(out) {}

    void u64(uint64_t v) {
        for (int i = 0; i < 8; ++i) out_.push_back(uint8_t(v >> (8 * i)));
    }
    void u32(uint32_t v) {
        for (int i = 0; i < 4; ++i) out_.push_back(uint8_t(v >> (8 * i)));
    }
    void domain(const c1::domain_t& d) { out_.insert(out_.end(), d.begin(), d.end()); }

private:
    std::vector<uint8_t>& out_;
};

}  // namespace cuzk::bincode
