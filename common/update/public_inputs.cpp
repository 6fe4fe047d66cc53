#include "common/update/public_inputs.hpp"

#include <string>

#include "common/util/errors.hpp"

namespace cuzk::update {

uint64_t k_and_h_select(const update_shape& shape, unsigned k, unsigned h) {
    if (k >= shape.partition_count)
        throw input_error("SnapDeals partition " + std::to_string(k) + " does not exist: a sector of " +
                          std::to_string(shape.nodes) + " nodes has " + std::to_string(shape.partition_count) +
                          " (numbered from 0)");
    return uint64_t(k) | (uint64_t(shape.h_select(h)) << shape.partition_bit_len);
}

std::vector<ff::fr_t> generate_public_inputs(const update_shape& shape, unsigned k, unsigned h,
                                             const ff::fr_t& comm_r_old, const ff::fr_t& comm_d_new,
                                             const ff::fr_t& comm_r_new) {
    return {ff::fr_t::from_u64(k_and_h_select(shape, k, h)), comm_r_old, comm_d_new, comm_r_new};
}

}  // namespace cuzk::update
