#include "gpud/scratch_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace cuzk::gpud {

namespace {
double gib(size_t b) { return double(b) / double(1ull << 30); }
}  // namespace

std::string scratch_plan::summary() const {
    if (g1_limit == 0 && g2_limit == 0) return "MSM scratch unlimited (every window in one pass)";
    auto one = [](size_t b) { return b == 0 ? std::string("unlimited") : fmt::format("{:.1f} GiB", gib(b)); };
    return fmt::format("MSM scratch: G1 {}, G2 {} (windows in passes under a limit){}", one(g1_limit), one(g2_limit),
                       fits ? "" : "; even one window per pass exceeds the memory left, runs may fail to allocate");
}

scratch_plan plan_scratch(size_t available, scratch_demand g1, scratch_demand g2) {
    scratch_plan p;
    if (g1.need + g2.need <= available) return p;
    if (g1.need + g2.least <= available) {
        p.g2_limit = std::max<size_t>(available - g1.need, 1);
        return p;
    }
    if (g1.least + g2.least > available) {
        p.g1_limit = std::max<size_t>(g1.least, 1);
        p.g2_limit = std::max<size_t>(g2.least, 1);
        p.fits = false;
        return p;
    }
    // Shares in proportion to the needs (in long double: needs reach 2^36 and more), then each raised to its least.
    const long double share = (long double)available * (long double)g2.need / (long double)(g1.need + g2.need);
    size_t g2_share = std::clamp<size_t>(size_t(share), g2.least, available - g1.least);
    p.g2_limit = std::max<size_t>(g2_share, 1);
    p.g1_limit = std::max<size_t>(available - g2_share, 1);
    return p;
}

stream_segments choose_segments(size_t g1_max, size_t g2_points, size_t free,
                                const std::function<size_t(size_t, size_t)>& device_need) {
    stream_segments s{std::min<size_t>(g1_max, size_t(1) << 25), std::min<size_t>(g2_points, size_t(1) << 24)};
    while (device_need(s.g1, s.g2) > free && s.g1 > (size_t(1) << 20)) {
        s.g1 /= 2;
        s.g2 = std::max<size_t>(s.g2 / 2, std::min<size_t>(g2_points, 1));
    }
    s.fits = device_need(s.g1, s.g2) <= free;
    s.g1 = std::max<size_t>(s.g1, 1);
    return s;
}

size_t largest_run(const std::vector<size_t>& queries, size_t resident, size_t segment) {
    size_t n = 0, run = 0;
    for (size_t q : queries) {
        if (n < resident) run = std::max(run, std::min(q, resident - n));
        n += q;
    }
    return resident < n ? std::max(run, segment) : run;
}

points_split choose_points_split(const std::vector<size_t>& g1_queries, size_t n_g2, const stream_segments& segments,
                                 size_t g1_bytes, size_t g2_bytes, size_t free, size_t keep_for_scratch,
                                 const std::function<size_t(size_t, size_t)>& device_need_beside) {
    points_split out;
    size_t n_g1 = 0;
    for (size_t q : g1_queries) n_g1 += q;
    out.g2_resident = n_g2 <= 2 * segments.g2;
    const size_t g2_device = out.g2_resident ? n_g2 * g2_bytes : 2 * segments.g2 * g2_bytes;
    const size_t g2_run = out.g2_resident ? n_g2 : segments.g2;
    auto g1_run = [&](size_t r) { return largest_run(g1_queries, r, segments.g1); };
    auto need = [&](size_t r) {
        const size_t buffers = r < n_g1 ? 2 * segments.g1 * g1_bytes : 0;
        return r * g1_bytes + buffers + g2_device + keep_for_scratch + device_need_beside(g1_run(r), g2_run);
    };
    if (need(0) > free) {
        // Not even the segments beside B_G2's resident points: everything streamed, as choose_segments planned.
        out.g2_resident = false;
        out.fits = segments.fits;
        return out;
    }
    // need(r) grows with r: the most points that fit, by bisection.
    size_t lo = 0, hi = n_g1;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo + 1) / 2;
        if (need(mid) <= free)
            lo = mid;
        else
            hi = mid - 1;
    }
    out.g1_resident = lo;
    return out;
}

}  // namespace cuzk::gpud

