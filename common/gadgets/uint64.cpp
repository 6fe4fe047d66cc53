#include "common/gadgets/uint64.hpp"

#include "common/gadgets/multipack.hpp"

namespace cuzk::gadgets {

uint64 uint64::constant(uint64_t value) {
    uint64 r;
    r.value_ = value;
    for (unsigned i = 0; i < 64; ++i) r.bits_[i] = boolean::constant((value >> i) & 1);
    return r;
}

uint64 uint64::alloc(cs::constraint_system& cs, uint64_t value) {
    uint64 r;
    r.value_ = cs.has_witness() ? value : 0;
    for (unsigned i = 0; i < 64; ++i) r.bits_[i] = boolean::alloc(cs, (r.value_ >> i) & 1);
    return r;
}

std::vector<boolean> uint64::bits_be() const { return std::vector<boolean>(bits_.rbegin(), bits_.rend()); }

void uint64::pack_into_input(cs::constraint_system& cs) const { pack_into_inputs(cs, bits_); }

}  // namespace cuzk::gadgets
