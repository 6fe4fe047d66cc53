#include "common/circuits/mul_chain.hpp"

#include <stdexcept>

namespace cuzk::circuits {

mul_chain::mul_chain(size_t n, std::string seed) : n_(n), seed_(std::move(seed)) {
    if (n == 0) throw std::invalid_argument("mul chain needs at least one constraint");
    // Small non-zero starting values from the seed (FNV-1a), so products never collapse to 0.
    uint64_t h = 0xcbf29ce484222325ULL;
    for (unsigned char c : seed_) h = (h ^ c) * 0x100000001b3ULL;
    x0_ = ff::fr_t::from_u64(2 + (h & 0xffff));
    x1_ = ff::fr_t::from_u64(3 + ((h >> 16) & 0xffff));
}

std::string mul_chain::name() const {
    std::string s = "mul:" + std::to_string(n_);
    if (!seed_.empty()) s += "@" + seed_;
    return s;
}

void mul_chain::synthesize(cs::constraint_system& cs) const {
    ff::fr_t prev_v = x0_, cur_v = x1_;
    cs::variable prev = cs.alloc(prev_v);
    cs::variable cur = cs.alloc(cur_v);
    for (size_t k = 1; k <= n_; ++k) {
        ff::fr_t next_v = cur_v * prev_v;
        cs::variable next = k == n_ ? cs.alloc_input(next_v) : cs.alloc(next_v);
        cs.enforce(cs::linear_combination(cur), cs::linear_combination(prev), cs::linear_combination(next));
        prev = cur;
        prev_v = cur_v;
        cur = next;
        cur_v = next_v;
    }
}

std::vector<ff::fr_t> mul_chain::public_inputs() const {
    ff::fr_t prev = x0_, cur = x1_;
    for (size_t k = 1; k <= n_; ++k) {
        ff::fr_t next = cur * prev;
        prev = cur;
        cur = next;
    }
    return {cur};
}

}  // namespace cuzk::circuits
