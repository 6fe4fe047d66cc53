// sppark's NTT timings alone, without the harness's MSMs: a driver for ../shared/peers/sppark-bench's
// spp_ntt_bench (harness/spp_ntt.cu, linked from that folder; nothing of sppark is in this file). The input
// is 2^lg pseudo-random canonical field elements below 2^254 < r, as sppark takes them.
//
//   spp_ntt_only [--ntt-log 27] [--reps 3] [--check-log 20]
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "iface.h"

namespace {
int arg_int(int argc, char** argv, const char* name, int def) {
    for (int i = 1; i + 1 < argc; ++i)
        if (!std::strcmp(argv[i], name)) return std::atoi(argv[i + 1]);
    return def;
}
}  // namespace

int main(int argc, char** argv) {
    const int lg = arg_int(argc, argv, "--ntt-log", 27);
    const int reps = arg_int(argc, argv, "--reps", 3);
    const int check_lg = arg_int(argc, argv, "--check-log", 20);
    if (lg < 1 || lg > 28 || reps < 1 || check_lg < 1 || check_lg > lg) {
        std::fprintf(stderr, "spp_ntt_only: --ntt-log 1..28, --reps >= 1, --check-log 1..ntt-log\n");
        return 2;
    }
    char info[512];
    if (spp_device_info(info, sizeof info)) {
        std::printf("no GPU: %s\n", spp_last_error());
        return 3;
    }
    std::printf("device: %s\n", info);
    const size_t words = (size_t(1) << lg) * 4;
    auto* data = static_cast<uint64_t*>(spp_host_alloc(words * sizeof(uint64_t)));
    if (!data) {
        std::printf("page-locked allocation of 2^%d elements failed\n", lg);
        return 1;
    }
    uint64_t z = 0x2545f4914f6cdd1dULL;
    for (size_t i = 0; i < words; ++i) {  // splitmix64
        z += 0x9e3779b97f4a7c15ULL;
        uint64_t v = z;
        v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9ULL;
        v = (v ^ (v >> 27)) * 0x94d049bb133111ebULL;
        data[i] = v ^ (v >> 31);
        if (i % 4 == 3) data[i] &= 0x3fffffffffffffffULL;
    }
    const int rc = spp_ntt_bench(unsigned(lg), reps, data, unsigned(check_lg));
    spp_host_free(data);
    return rc;
}
