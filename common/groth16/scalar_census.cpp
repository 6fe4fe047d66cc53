#include "common/groth16/scalar_census.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include "common/groth16/density_gather.hpp"

namespace cuzk::groth16 {

scalar_classes& scalar_classes::operator+=(const scalar_classes& o) {
    zero += o.zero;
    one += o.one;
    small += o.small;
    other += o.other;
    return *this;
}

scalar_classes classify_scalars(std::span<const ff::fr_t> x, const density_view* selected, const char* what) {
    if (selected) check_density(*selected, x.size(), what);
    // 2^16 scalars per task: a 130 M-scalar partition spreads over ~2,000 tasks.
    const tbb::blocked_range<std::size_t> all(0, x.size(), std::size_t(1) << 16);
    return tbb::parallel_reduce(
        all, scalar_classes{},
        [&](const tbb::blocked_range<std::size_t>& r, scalar_classes acc) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                if (selected && !selected->test(i)) continue;
                const ff::fr_t& s = x[i];
                if (s.is_zero()) {
                    ++acc.zero;
                } else if (s.is_one()) {
                    ++acc.one;
                } else {
                    const auto c = s.to_canonical();  // only the high limbs decide; one multiplication
                    if (c[1] == 0 && c[2] == 0 && c[3] == 0)
                        ++acc.small;
                    else
                        ++acc.other;
                }
            }
            return acc;
        },
        [](scalar_classes a, const scalar_classes& b) { return a += b; });
}

partition_census census_of(const witness_view& w) {
    partition_census c;
    c.l = classify_scalars(w.aux, nullptr, "aux");
    c.a = classify_scalars(w.inputs);
    c.a += classify_scalars(w.aux, &w.a_aux_density, "A aux");
    c.b = classify_scalars(w.inputs, &w.b_input_density, "B input");
    c.b += classify_scalars(w.aux, &w.b_aux_density, "B aux");
    return c;
}

}  // namespace cuzk::groth16
