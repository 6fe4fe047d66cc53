// How the CUDA backend shares the device memory left beside the resident parameters between its two MSM
// contexts' scratch (G1: the H, L, A, B_G1 MSMs; G2: B_G2), so that a GPU without room for every window's
// sorted pairs at once still proves: the contexts then process their windows in passes under a limit
// (cuda::msm_context::set_scratch_limit). Plain arithmetic, built and tested everywhere.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace cuzk::gpud {

// One context's demand: |need| for every window in one pass, |least| for one window per pass.
struct scratch_demand {
    size_t need = 0;
    size_t least = 0;
};

struct scratch_plan {
    size_t g1_limit = 0, g2_limit = 0;  // 0: no limit
    bool fits = true;                   // false: even one window per pass exceeds |available|
    std::string summary() const;        // one line for the log
};

// |available|: device bytes the two contexts may take for scratch (free memory plus what they hold now, less
// what the NTTs still need and a reserve). Where both needs fit, no limits. Where G1's need and G2's least
// fit, G1 none and G2 the rest: G2's need is a worst case (every B scalar random) that PoRep's B (mostly 0
// and 1) never reaches, and G1's H MSM (random) does reach its own. Otherwise each context gets a share of
// |available| in proportion to its need, but never below its least (taken from the other's share); where the
// two leasts do not fit together, each gets its least and |fits| is false (the first run will likely fail to
// allocate, with the CUDA error naming the size).
scratch_plan plan_scratch(size_t available, scratch_demand g1, scratch_demand g2);

// Points per streamed copy when the parameters' points live in host memory: 2^25 G1 and 2^24 G2 points (no more
// than the largest G1 query |g1_max| and the |g2_points|), both halved, down to 2^20 G1 points, while
// |device_need(g1, g2)| (the two contexts' buffers and what the kernels need beside them) exceeds |free|.
struct stream_segments {
    size_t g1 = 0, g2 = 0;
    bool fits = true;  // false: even the smallest segments need more than |free|
};
stream_segments choose_segments(size_t g1_max, size_t g2_points, size_t free,
                                const std::function<size_t(size_t g1, size_t g2)>& device_need);

// The largest MSM run over a context whose queries have sizes |queries| (in context order) with its first
// |resident| points on the device and the rest streamed in segments of |segment| points: a query's resident part,
// or a segment where any point is streamed.
size_t largest_run(const std::vector<size_t>& queries, size_t resident, size_t segment);

// Where the points go when not all fit the device beside the kernels' least needs: the G1 context's first
// |g1_resident| points (its queries in context order: l, a, b_g1, then h, so that h, whose MSM has random scalars
// and so hides its copies under its kernels, is the first streamed) stay on the device and the rest stream from
// host memory through two segment buffers; B_G2's points stay resident where they take no more device memory than
// their two segment buffers would (a 32 GiB PoRep set's 33 M G2 points: 6 GiB, the same as two 2^24 segments),
// else they stream too. Each GiB kept resident saves a PoRep partition ~17 ms of copies on an H100 (L, A and B
// are bound by the link: 50 GB/s).
struct points_split {
    size_t g1_resident = 0;
    bool g2_resident = false;
    bool fits = true;  // false: not even the segments fit beside the kernels' needs (all streamed, as before)
};
// |g1_queries|: the G1 queries' sizes in context order; |segments|: choose_segments' for the whole set streamed;
// |g1_bytes|, |g2_bytes|: a point's device bytes; |free|: device bytes free; |device_need_beside(g1_run,
// g2_run)|: what the kernels take beside the points for runs of those sizes (the NTTs, the MSMs' least
// scratch, a reserve); |keep_for_scratch|: device bytes left beside that for the MSMs' scratch to grow into.
points_split choose_points_split(const std::vector<size_t>& g1_queries, size_t n_g2, const stream_segments& segments,
                                 size_t g1_bytes, size_t g2_bytes, size_t free, size_t keep_for_scratch,
                                 const std::function<size_t(size_t g1_run, size_t g2_run)>& device_need_beside);

}  // namespace cuzk::gpud
