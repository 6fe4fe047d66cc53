// GPU benchmark of the CUDA backend (gpud/cuda): G1 MSM 2^20..2^26 (random and PoRep-like scalars),
// G2 MSM 2^20 and 2^24 (and the CPU G2 MSM at 2^18 for comparison), NTT 2^20..2^27 and the H pipeline
// at 2^27. Points, scalars and NTT inputs are resident in device memory while timed; scalar upload
// over PCIe is timed apart. Each figure is the median of several runs after a warm-up; the host
// clock is read after the device has finished (every call below returns synchronised).
//
// Points: 2048 + 64 random curve points made on the CPU, summed pairwise on the GPU (one affine
// addition each) into up to 2^26 distinct points (msm.hpp, generate_points). A 2^20 G1 result
// is checked against the CPU MSM on the same points and scalars before timing.
//
//   cuzk_bench_gpu [--max-log-msm 26] [--max-log-ntt 27] [--reps 5] [--ntt-only] [--sweep-log L]
//   (--sweep-log: the window sweep at 2^L as well as at 2^24)
//   cuzk_bench_gpu --multiples [--max-log-msm 26] [--reps 5]   (precomputed window multiples; see multiples_bench)
//   cuzk_bench_gpu --one-msm [--max-log-msm L] [--g2] [--porep] [--with-multiples C] [--window-bits c[,c...]]
//                  [--buckets xyzz|batch-affine] [--ones xyzz|batch-affine] [--uniform-windows U[,U...]] [--reps 5]
//   (one MSM timed with those msm_options and checked against the default options' result; --buckets and
//   --ones force one of the production sums where the sizes would choose (msm_sum); --uniform-windows 1:
//   every window c bits, as before the even split; 0: the default)
//   cuzk_bench_gpu --partition [--log-domain 27] [--census F] [--l-points N] [--a-points N] [--b-points N] [--reps 3]
//                  [--device-gib D] [--kernels-only] [--no-pageable] [--host-points [--resident-gib G]
//                  [--g2-resident] [--sparse-streaming]] [--h-sweep]
//                  [--uniform-windows] [--separate-la] [--phases]
//   (--device-gib: as on a GPU of D GiB, a ballast allocation taking the rest, with the MSM scratch limits the
//   backend would set there; --kernels-only: the kernel rows alone, no copies or pinning steps; --no-pageable:
//   the pinned copies and gpud's sequence, without timing the pageable copies (the rows' are skipped) and
//   without the pinning-beside step (gpud pins every range it copies; those steps take most of the mode's
//   minutes); --host-points:
//   the points in page-locked host memory, streamed per MSM as gpud does with [gpud] params_memory = "host";
//   --resident-gib G: the first G GiB of G1 points on the device, the rest streamed, as gpud splits them where not
//   all fit; --g2-resident: B_G2's points on the device; --sparse-streaming: segments whose scalars are mostly 0
//   get only the points their runs read, msm_context::set_sparse_streaming)
//
//   cuzk_bench_gpu --compact-partition [--registered-proof NAME] [--matrix-file F] [--census F] [--reps 3]
//                  [--params-memory P[,P...]]  (P: auto|device|host|split, each proved in turn; P+sparse:
//                  with [gpud] sparse_streaming, e.g. host,host+sparse)
//   (gpud's CUDA backend on a SYNTHETIC compact partition of a PoRep shape, 32 GiB by default: compact_bench
//   below; with SPDLOG_LEVEL=debug each run's step times are logged)
//
//   cuzk_bench_gpu --r1cs [--circuit SPEC] [--matrix-file F] [--reps 5] [--no-check]
//   (the R1CS evaluation on the GPU, r1cs_bench below: SPEC is a built-in circuit (mul:N, sha256:N,
//   porep:StackedDrg2KiBV1_1, ...; default sha256:64) or porep-synthetic:<registered proof>[@seed], a PoRep
//   partition with a SYNTHETIC witness of that shape (porep/synthetic_witness.hpp: not satisfied, real sizes); F:
//   the matrices read from F when it exists, else recorded and written there)
//
// --partition: GPU time of one SYNTHETIC partition of the 32 GiB PoRep shape, the kernel sequence of gpud's
// CUDA backend (cuda_backend.cpp run_kernels) at domain 2^27 with resident random points (parameters of that
// size cannot be made quickly by our setup): H by the device NTTs from random rows, its coefficients handed
// to the H MSM in device memory, then the L, A and B_G1 MSMs. Their sizes and scalars: with --census F (the
// JSON of `cuzk circuit-info --c1 C1 --scalar-census`; bench/gpu/porep_32GiB_census.json is partition 0 of a
// 32 GiB C1) each query has the census's size and its scalars are drawn with the census's fractions of zeros,
// ones and small values (the rest uniform random). Without it, the assumptions made before the census: PoRep-like
// scalars (45% 0, 45% 1, 10% random); l the aux count of StackedDrg32GiBV1_1 (cuzk circuit-info); a every input
// and aux variable, so A's scalars are the inputs and then L's, and gpud runs L and A as one MSM
// (cuda::msm_context::run_uploaded_ranges); b_g1 what the 47 GiB .params file leaves, 96 a + 288 b bytes. The
// census found A leaves 416,601 aux variables out and B has 33.1 M: L and A are then apart, as gpud runs them.
// Where A shares L's scalars the kernel rows time L and A apart and as that one run; --separate-la runs them
// apart in gpud's sequence too (the sequence before the shared run).
// Points kept as the backend keeps them (h, l, a, b_g1 in one G1 context, b_g2 in a G2 context); B_G2 on the
// GPU as the backend does by default, and the CPU rate at 2^20 for comparison. The host-to-device copies of
// the rows (three host vectors, as the backend's rows a, b, c) and the L, A, B scalars are timed apart from the
// kernels, twice per rep: from pageable memory (the backend before pinning, or with a range it could not pin)
// and from the same vectors page-locked by cuda::host_pin (host_pin.hpp), as the backend pins them in prepare;
// the registration and unregistration are timed too, as CPU time (the backend pays them outside the CUDA
// lock, in prepare and finish). Once, after the warm-up's pinned copy, row a is read back and compared.
// Then gpud's sequence (copies beside the kernels) in five orders, each with the times at which its steps
// ended: B_G2's scalars and row a prestaged, B_G1's MSM beside the rows' copies reading B_G2's scalars in the
// G2 context (the backend's in a steady state: B_G2's scalars and row a copied by the previous lock holder,
// so only rows b and c at the start, and the next partition's copied by the B_G2 thread through the same
// prestage_board, row a into the NTT context's spare slot); and gpud's earlier orders, for comparison: the
// same with row a copied under the lock, with B_G1 last (commit c57b61e), B_G2's scalars alone first
// (commit 2b459e7), and the rows first with B_G2's upload beside row a (commit 64c2c09).
// Then whether pinning on one thread slows the GPU work of another (gpud: one worker pins in prepare while
// another holds the lock): the kernels with the L/A/B uploads from pinned memory, alone and while a second
// thread pins and unpins rows a, b, c (12 GiB at 2^27) in a loop.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>
#include <spdlog/cfg/env.h>

#include <fstream>

#include "common/circuits/registry.hpp"
#include "common/groth16/density_gather.hpp"
#include "common/msm/msm.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/stacked_circuit.hpp"
#include "common/porep/synthetic_witness.hpp"
#include "common/r1cs/matrix_file.hpp"
#include "common/r1cs/matrix_product.hpp"
#include "common/r1cs/matrix_recorder.hpp"
#include "common/witness/compact_vector_builder.hpp"
#include "common/witness/compact_vector_expansion.hpp"
#include "common/witness/compact_vector_serialization.hpp"
#include "common/witness/witness_assignment.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/cuda/host_pin.hpp"
#include "gpud/cuda/msm.hpp"
#include "gpud/cuda/ntt.hpp"
#include "gpud/cuda/r1cs_device.hpp"
#include "gpud/cuda/r1cs_witness.hpp"
#include "gpud/cuda_backend.hpp"
#include "gpud/prestage_board.hpp"
#include "gpud/scratch_plan.hpp"
#include "tests/support/curve_points.hpp"

using namespace cuzk;
using ff::fr_t;

namespace {

double now_ms() {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Median wall time of |reps| calls after one warm-up call.
double median_ms(int reps, const std::function<void()>& f) {
    f();
    std::vector<double> t;
    for (int i = 0; i < reps; ++i) {
        double t0 = now_ms();
        f();
        t.push_back(now_ms() - t0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

uint64_t splitmix(uint64_t& s) {
    uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

// Uniform below r by rejection on 255-bit values; taken as the Montgomery representation (a
// bijection of [0, r), so still uniform field elements).
fr_t random_scalar(uint64_t& s) {
    for (;;) {
        ff::limbs<4> c{splitmix(s), splitmix(s), splitmix(s), splitmix(s) & 0x7fffffffffffffffULL};
        if (!ff::geq(c, fr_t::MODULUS)) return fr_t::from_raw(c);
    }
}

// The classes of a query's scalars as fractions (groth16/scalar_census.hpp); the rest are uniform random.
struct scalar_mix {
    double zero = 0, one = 0, small = 0;
    std::string name = "random";
};
const scalar_mix porep_like{0.45, 0.45, 0, "PoRep-like"};  // the issue's "45% zero, 45% one, 10% random"

std::vector<fr_t> make_scalars(size_t n, const scalar_mix& mix, uint64_t seed) {
    std::vector<fr_t> v(n);
    uint64_t s = seed;
    for (auto& x : v) {
        const double u = double(splitmix(s) >> 11) * 0x1p-53;
        if (u < mix.zero)
            x = fr_t::zero();
        else if (u < mix.zero + mix.one)
            x = fr_t::one();
        else if (u < mix.zero + mix.one + mix.small)
            x = fr_t::from_u64(splitmix(s) | 2);  // neither 0 nor 1, below 2^64
        else
            x = random_scalar(s);
    }
    return v;
}

std::vector<fr_t> make_scalars(size_t n, bool porep, uint64_t seed) {
    return make_scalars(n, porep ? porep_like : scalar_mix{}, seed);
}

// A real partition's query sizes and scalar classes, from `cuzk circuit-info --c1 F --scalar-census`'s JSON
// (bench/gpu/porep_32GiB_census.json: partition 0 of a synthetic 32 GiB C1).
struct query_census {
    size_t points = 0;
    scalar_mix mix;
};
query_census census_query(const nlohmann::json& census, const char* q, const std::string& file) {
    const auto& c = census.at("scalar_census").at(q);
    query_census out;
    out.points = c.at("scalars").get<size_t>();
    if (out.points == 0) throw std::invalid_argument(file + ": scalar_census." + q + " has no scalars");
    const double n = double(out.points);
    out.mix = {double(c.at("zero").get<uint64_t>()) / n, double(c.at("one").get<uint64_t>()) / n,
               double(c.at("small").get<uint64_t>()) / n, "census"};
    return out;
}

template <class F>
std::vector<ec::affine_t<F>> seeds_for(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<ec::affine_t<F>> v(2048 + (n + (1u << 20) - 1) / (1u << 20));
    for (auto& p : v) p = test::random_curve_point<F>(rng);
    return v;
}

struct row {
    std::string what;
    double ms;
    std::string note;
};
std::vector<row> table;

void record(const std::string& what, double ms, const std::string& note = "") {
    table.push_back({what, ms, note});
    std::printf("%-44s %10.2f ms  %s\n", what.c_str(), ms, note.c_str());
    std::fflush(stdout);
}

// --multiples: G1 MSM with precomputed window multiples (msm.hpp precompute_window_multiples) at 2^20 to
// 2^max: per size the plain MSM (the default path), then per window width the time to make the multiples,
// the MSM through them with the bucket sum the sizes choose and with each forced (XYZZ, batch-affine), random
// and PoRep-like, each result checked against the plain MSM's (and at 2^20 the plain one against the CPU).
int multiples_bench(int max_log_msm, int reps) {
    try {
        std::printf("device: %s\n", cuda::device_description(0).c_str());
        auto rnd = make_scalars(size_t(1) << max_log_msm, false, 7);
        auto porep = make_scalars(size_t(1) << max_log_msm, true, 8);
        bool all_same = true;
        for (int L = 20; L <= max_log_msm; L += 2) {
            const size_t n = size_t(1) << L;
            const int r = L >= 26 ? std::max(1, reps / 2) : reps;
            cuda::g1_msm_context g1;
            g1.generate_points(n, seeds_for<ff::fp_t>(n, 1));
            const std::string size = "G1 MSM 2^" + std::to_string(L);
            ec::g1_jacobian_t want[2];
            for (int shape = 0; shape < 2; ++shape) {
                g1.upload_scalars(std::span<const fr_t>((shape == 0 ? rnd : porep).data(), n));
                cuda::msm_report rep;
                double ms = median_ms(r, [&] { want[shape] = g1.run_uploaded(n, &rep); });
                std::string note = "c=" + std::to_string(rep.window_bits) + ", no multiples";
                if (L == 20) {
                    auto pts = g1.download_points();
                    const auto& sc = shape == 0 ? rnd : porep;
                    bool ok = msm::multi_exp<ff::fp_t>(pts, std::span<const fr_t>(sc.data(), n)) == want[shape];
                    all_same = all_same && ok;
                    note += ok ? "; == CPU" : "; MISMATCH with the CPU";
                }
                record(size + (shape == 0 ? " random" : " PoRep-like") + ", plain", ms, note);
            }
            std::vector<unsigned> widths;
            if (L <= 22) widths = {16u, 18u, 20u};
            else if (L == 24) widths = {20u, 22u, 24u};
            else widths = {22u, 24u};
            for (unsigned c : widths) {
                double t0 = now_ms();
                if (g1.precompute_window_multiples(c) != c) throw std::runtime_error("multiples not made");
                record(size + ": multiples made, c=" + std::to_string(c), now_ms() - t0,
                       std::to_string((256 + c - 1) / c) + " windows of the points");
                for (int shape = 0; shape < 2; ++shape) {
                    g1.upload_scalars(std::span<const fr_t>((shape == 0 ? rnd : porep).data(), n));
                    for (cuda::msm_sum how : {cuda::msm_sum::by_size, cuda::msm_sum::xyzz, cuda::msm_sum::batch_affine}) {
                        cuda::msm_options opt;
                        opt.window_bits = shape == 0 ? c : 0;  // PoRep-like: the cost model decides
                        opt.buckets = how;
                        bool same = true;
                        cuda::msm_report rep;
                        double ms = median_ms(r, [&] {
                            same = same && g1.run_uploaded(n, &rep, opt) == want[shape];
                        });
                        all_same = all_same && same;
                        cuda::msm_options timed = opt;
                        timed.timing = true;
                        g1.run_uploaded(n, &rep, timed);
                        char what[160], note[240];
                        const std::string sum = std::string(rep.batch_affine ? "batch-affine" : "XYZZ") +
                                                (how == cuda::msm_sum::by_size ? " (by size)" : "");
                        std::snprintf(what, sizeof what, "%s %s, multiples c=%u, %s", size.c_str(),
                                      shape == 0 ? "random" : "PoRep-like", c, sum.c_str());
                        std::snprintf(note, sizeof note,
                                      "%s; used c=%u%s; sort %.1f, accumulate %.1f, reduce %.1f, ones %.1f ms",
                                      same ? "== plain" : "MISMATCH with the plain MSM", rep.window_bits,
                                      rep.multiples ? " with multiples" : " without multiples", rep.ms_sort,
                                      rep.ms_accumulate, rep.ms_reduce, rep.ms_ones);
                        record(what, ms, note);
                    }
                }
            }
        }
        std::printf("\n| what | ms | note |\n|---|---:|---|\n");
        for (const auto& rw : table) std::printf("| %s | %.2f | %s |\n", rw.what.c_str(), rw.ms, rw.note.c_str());
        if (!all_same) std::printf("CHECK FAILED: a result above differs\n");
        return all_same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}

int arg_int(int argc, char** argv, const char* name, int def) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return std::atoi(argv[i + 1]);
    }
    return def;
}

// A comma-separated list of numbers ("37,165"); {def} when the flag is absent.
std::vector<unsigned> arg_list(int argc, char** argv, const char* name, unsigned def) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) != 0) continue;
        std::vector<unsigned> v;
        for (const char* p = argv[i + 1]; *p;) {
            if (*p < '0' || *p > '9')  // strtoul would take a sign or spaces
                throw std::invalid_argument(std::string(name) + ": not a list of numbers: " + argv[i + 1]);
            char* end = nullptr;
            const unsigned long x = std::strtoul(p, &end, 10);
            if (end == p) throw std::invalid_argument(std::string(name) + ": not a list of numbers: " + argv[i + 1]);
            v.push_back(unsigned(x));
            p = *end == ',' ? end + 1 : end;
            if (*end && *end != ',') throw std::invalid_argument(std::string(name) + ": not a list of numbers: " + argv[i + 1]);
        }
        return v;
    }
    return {def};
}


// Wall time of f() (every call below returns synchronised).
double time_ms(const std::function<void()>& f) {
    double t0 = now_ms();
    f();
    return now_ms() - t0;
}

bool has_flag(int argc, char** argv, const char* name) {
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return true;
    return false;
}

// The value after |name|, or null when the flag is absent.
const char* arg_str(int argc, char** argv, const char* name) {
    for (int i = 1; i + 1 < argc; ++i)
        if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
    return nullptr;
}

// --buckets / --ones: "xyzz" or "batch-affine" forces that sum (msm_sum); absent: by size.
cuda::msm_sum sum_arg(int argc, char** argv, const char* name) {
    const char* v = arg_str(argc, argv, name);
    if (v == nullptr) return cuda::msm_sum::by_size;
    if (std::strcmp(v, "xyzz") == 0) return cuda::msm_sum::xyzz;
    if (std::strcmp(v, "batch-affine") == 0) return cuda::msm_sum::batch_affine;
    throw std::invalid_argument(std::string(name) + ": \"xyzz\" or \"batch-affine\", not \"" + v + "\"");
}

const char* sum_name(cuda::msm_sum how) {
    return how == cuda::msm_sum::by_size ? "by size" : how == cuda::msm_sum::xyzz ? "XYZZ" : "batch-affine";
}

long long arg_ll(int argc, char** argv, const char* name, long long def) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return std::atoll(argv[i + 1]);
    }
    return def;
}

double arg_double(int argc, char** argv, const char* name, double def) {
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::strcmp(argv[i], name) == 0) return std::atof(argv[i + 1]);
    }
    return def;
}

double device_used_gib() {
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return -1;
    return double(total_b - free_b) / double(1ull << 30);
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int partition_bench(int argc, char** argv) {
    const unsigned L = unsigned(arg_int(argc, argv, "--log-domain", 27));
    const size_t m = size_t(1) << L;
    const size_t n_h = m - 1;
    // The query sizes and scalar classes: --census FILE takes them from a real partition's census; without it,
    // PoRep-like scalars and the sizes assumed before the census was taken (A dense, B 44 M).
    query_census q_l{130169893, porep_like}, q_a{130169893 + 328, porep_like}, q_b{44000000, porep_like};
    std::string shape = "the 32 GiB PoRep shape";
    const char* census_file = arg_str(argc, argv, "--census");
    if (census_file) {
        std::ifstream in(census_file);
        if (!in) throw std::invalid_argument(std::string("--census ") + census_file + ": cannot read it");
        try {
            const nlohmann::json census = nlohmann::json::parse(in);
            shape = census.value("registered_proof", std::string("the census's circuit"));
            q_l = census_query(census, "l", census_file);
            q_a = census_query(census, "a", census_file);
            q_b = census_query(census, "b", census_file);
        } catch (const nlohmann::json::exception& e) {  // not JSON, or not `circuit-info --scalar-census`'s
            throw std::invalid_argument(std::string("--census ") + census_file +
                                        ": not a scalar census (cuzk circuit-info --scalar-census): " + e.what());
        }
    }
    const size_t n_l = size_t(arg_ll(argc, argv, "--l-points", (long long)q_l.points));
    const size_t n_a = size_t(arg_ll(argc, argv, "--a-points", (long long)q_a.points));
    const size_t n_b = size_t(arg_ll(argc, argv, "--b-points", (long long)q_b.points));
    const int reps = arg_int(argc, argv, "--reps", 3);
    std::printf("SYNTHETIC partition of %s (random points and scalars, not real parameters):\n"
                "  domain 2^%u; h %zu, l %zu, a %zu, b_g1/b_g2 %zu points\n", shape.c_str(), L, n_h, n_l, n_a, n_b);
    for (const auto& [q, c] : {std::pair{"L", &q_l}, std::pair{"A", &q_a}, std::pair{"B", &q_b}})
        std::printf("  %s scalars %s: %.2f%% zero, %.2f%% one, %.2f%% below 2^64, %.2f%% random\n", q, c->mix.name.c_str(),
                    100 * c->mix.zero, 100 * c->mix.one, 100 * c->mix.small,
                    100 * (1 - c->mix.zero - c->mix.one - c->mix.small));
    if (census_file) std::printf("  (sizes and classes from %s)\n", census_file);
    std::printf("device: %s\n", cuda::device_description(0).c_str());

    double t0 = now_ms();
    auto aux = make_scalars(n_l, q_l.mix, 21);
    // A's scalars as gpud's prepare makes them where A uses every aux variable: the inputs, then the aux
    // scalars, L's. A real 32 GiB partition's A leaves 416,601 aux variables out (the census): then, as with
    // --a-points at most --l-points, A's scalars are its own.
    auto a_sc = make_scalars(n_a, q_a.mix, 22);
    const bool a_shares_l = n_a > n_l;
    const size_t a_inputs = a_shares_l ? n_a - n_l : 0;
    if (a_shares_l) std::copy(aux.begin(), aux.end(), a_sc.begin() + ptrdiff_t(a_inputs));
    auto b_sc = make_scalars(n_b, q_b.mix, 23);
    // Three row vectors as the backend has them (rows a, b, c of prepared_partition): three ranges to pin.
    std::vector<fr_t> row_a = make_scalars(m, false, 24);
    std::vector<fr_t> row_b = row_a, row_c = row_a;
    record("partition: host scalars made (CPU)", now_ms() - t0, "not GPU time");
    const std::vector<fr_t>* const rows[3] = {&row_a, &row_b, &row_c};
    const double gib = double(1ull << 30);
    const double rows_gib = 3.0 * double(m) * sizeof(fr_t) / gib;
    const double scalars_gib = double(n_l + n_a + n_b) * sizeof(fr_t) / gib;  // B uploaded twice, pinned once

    {
        // As the backend keeps them: h, l, a, b_g1 back to back in one G1 context (one set of scratch
        // buffers), b_g2 in a G2 context.
        cuda::ntt_context ntt;
        ntt.prepare(L);
        cuda::g1_msm_context g1;
        cuda::g2_msm_context g2;
        // l, a, b_g1, then h: the order of the backend, whose points kept in host memory are the context's last.
        const size_t first_l = 0, first_a = n_l, first_b = n_l + n_a, first_h = n_l + n_a + n_b;
        const size_t n_g1 = first_h + n_h;
        auto seeds = seeds_for<ff::fp_t>(n_g1, 31);
        t0 = now_ms();
        g1.generate_points(n_g1, seeds);
        char note[400];
        std::snprintf(note, sizeof note, "%.1f GiB of G1 points resident; device memory in use %.1f GiB",
                      double(n_g1) * 96 / double(1ull << 30), device_used_gib());
        record("partition: G1 points generated on GPU", now_ms() - t0, note);
        auto seeds2 = seeds_for<ff::fp2_t>(n_b, 32);
        t0 = now_ms();
        g2.generate_points(n_b, seeds2);
        std::snprintf(note, sizeof note, "%.1f GiB of G2 points; device memory in use %.1f GiB",
                      double(n_b) * 192 / double(1ull << 30), device_used_gib());
        record("partition: G2 points generated on GPU", now_ms() - t0, note);

        // --host-points: the points moved to page-locked host memory and streamed per MSM in segments of 2^25 G1
        // and 2^24 G2 points ([gpud] params_memory = "host").
        struct host_buffer {
            void* p = nullptr;
            ~host_buffer() {
                if (p) cudaFreeHost(p);
            }
        } host_g1, host_g2;
        // --resident-gib G (with --host-points): the first G GiB of the G1 points (l, a, b_g1, then h's) stay on
        // the device, the rest streamed, as the backend splits them where not all fit; --g2-resident: B_G2's
        // points stay on the device.
        const bool host_points = has_flag(argc, argv, "--host-points");
        const size_t seg_g1 = size_t(1) << 25, seg_g2 = size_t(1) << 24;
        const size_t g1_resident =
            host_points ? std::min(n_g1, size_t(std::max(0.0, arg_double(argc, argv, "--resident-gib", 0)) * gib / 96))
                        : n_g1;
        const bool g2_resident = !host_points || has_flag(argc, argv, "--g2-resident");
        if (host_points) {
            t0 = now_ms();
            constexpr unsigned flags = cudaHostAllocPortable | cudaHostAllocMapped;
            if (cudaHostAlloc(&host_g1.p, n_g1 * 96, flags) != cudaSuccess ||
                (!g2_resident && cudaHostAlloc(&host_g2.p, n_b * 192, flags) != cudaSuccess))
                throw std::runtime_error("cudaHostAlloc of the points' host copy failed");
            g1.download_points_packed(host_g1.p);
            g1.use_host_points(static_cast<std::byte*>(host_g1.p) + g1_resident * 96, n_g1, seg_g1, g1_resident);
            g1.upload_packed_at(0, host_g1.p, g1_resident);
            if (!g2_resident) {
                g2.download_points_packed(host_g2.p);
                g2.use_host_points(host_g2.p, n_b, seg_g2);
            }
            // --sparse-streaming: segments whose scalars are mostly 0 get only the points their runs read
            // (msm_context::set_sparse_streaming).
            const bool sparse = has_flag(argc, argv, "--sparse-streaming");
            g1.set_sparse_streaming(sparse);
            g2.set_sparse_streaming(sparse);
            std::snprintf(note, sizeof note, "%.1f GiB page-locked (%.1f GiB of G1 points resident%s); segments of 2^25 "
                          "G1, 2^24 G2 points; sparse streaming %s; device memory in use %.1f GiB",
                          double((n_g1 - g1_resident) * 96 + (g2_resident ? 0 : n_b * 192)) / gib,
                          double(g1_resident * 96) / gib, g2_resident ? ", G2 resident" : "",
                          !sparse ? "off" : g1.sparse_streaming_available() ? "on" : "asked, but the copy is not mapped",
                          device_used_gib());
            record("partition: points moved to host memory", now_ms() - t0, note);
        }
        // --device-gib D: as on a GPU of D GiB (the rest of this one's memory taken by a ballast allocation),
        // with the MSM scratch limits the backend would set there (plan_msm_scratch).
        const int device_gib = arg_int(argc, argv, "--device-gib", 0);
        struct ballast_t {
            void* p = nullptr;
            ~ballast_t() {
                if (p) cudaFree(p);
            }
        } ballast;
        if (device_gib > 0) {
            size_t free_b = 0, total_b = 0;
            if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) throw std::runtime_error("cudaMemGetInfo failed");
            const size_t want = size_t(device_gib) << 30;
            if (want < total_b) {
                const size_t bytes = total_b - want;
                if (bytes > free_b)
                    throw std::runtime_error("--device-gib " + std::to_string(device_gib) +
                                             ": the points alone take more than that");
                if (cudaMalloc(&ballast.p, bytes) != cudaSuccess)
                    throw std::runtime_error("ballast of " + std::to_string(bytes) + " bytes not allocated");
            }
            std::snprintf(note, sizeof note, "ballast %.1f GiB; device memory in use %.1f GiB",
                          double(want < total_b ? total_b - want : 0) / gib, device_used_gib());
            record("partition: as on a " + std::to_string(device_gib) + " GiB GPU", 0, note);
        }
        {
            // The largest run: a resident query (or its resident part), or a streamed segment.
            const size_t g1_max = host_points ? gpud::largest_run({n_l, n_a, n_b, n_h}, g1_resident, seg_g1)
                                              : std::max({n_h, n_l, n_a, n_b});
            const gpud::scratch_plan plan = gpud::plan_msm_scratch(0, g1_max, g2_resident ? n_b : seg_g2, L,
                                                                   g1.scratch_bytes() + g2.scratch_bytes(),
                                                                   ntt.device_bytes());
            g1.set_scratch_limit(plan.g1_limit);
            g2.set_scratch_limit(plan.g2_limit);
            record("partition: MSM scratch plan (as gpud's CUDA backend)", 0, plan.summary());
        }
        const bool kernels_only = has_flag(argc, argv, "--kernels-only");
        const bool phases = has_flag(argc, argv, "--phases");  // the L, A, B MSMs' phases, once, in the last rep
        const bool pageable = !has_flag(argc, argv, "--no-pageable");
        unsigned h_passes = 0;
        const bool separate_la = has_flag(argc, argv, "--separate-la") || !a_shares_l;
        cuda::msm_options g1_opt, g2_opt;
        // --uniform-windows: every window c bits wide, as before the even split.
        g1_opt.uniform_windows = g2_opt.uniform_windows = has_flag(argc, argv, "--uniform-windows");

        std::vector<double> t_rows, t_h, t_hmsm, t_lup, t_l, t_aup, t_a, t_bup, t_b, t_b2, t_total, t_la;
        // gpud's sequence (cuda_backend::run_kernels) with its copies: rows and the L/A/B scalars beside the kernels.
        std::vector<double> t_gpud, t_gpud_b_g1_first, t_gpud_prestaged, t_gpud_first, t_gpud_rows_first;
        bool gpud_same = true, prestaged_copied = true, have_spare = false;
        ec::jacobian_t<ff::fp_t> l_res, a_res, b_res;
        ec::jacobian_t<ff::fp2_t> b2_res;
        // L and A as gpud runs them when A's aux part is L's scalars (uploaded or in place already): one MSM run
        // over the aux scalars against both point ranges, then A's inputs.
        auto l_and_a = [&](ec::jacobian_t<ff::fp_t>& l, ec::jacobian_t<ff::fp_t>& a) {
            const size_t firsts[2] = {first_l, first_a + a_inputs};
            const auto both = g1.run_uploaded_ranges(firsts, n_l, nullptr, g1_opt);
            l = both[0];
            g1.upload_scalars(std::span<const fr_t>(a_sc).first(a_inputs));
            a = both[1] + g1.run_uploaded_range(first_a, a_inputs, nullptr, g1_opt);
        };
        bool la_same = true;
        // Pinned: copies (rows, L + B_G2, A, B), registration (rows, L, A, B) and unregistration.
        std::vector<double> p_rows, p_lup, p_aup, p_bup, r_rows, r_l, r_a, r_b, r_unpin;
        std::string pin_refused;  // the first refusal, if the driver would not pin a range
        bool readback_ok = true;
        double peak = 0;
        for (int rep = 0; rep <= reps; ++rep) {  // rep 0 is the warm-up
            // Transfers of the real backend: rows a, b, c from pageable host memory (the scalars' uploads
            // are timed below, apart from the MSMs).
            double tr = kernels_only || !pageable ? 0 : time_ms([&] {
                for (int sl = 0; sl < 3; ++sl) ntt.load(sl, *rows[sl]);
                ntt.synchronize();
            });
            for (int sl = 0; sl < 3; ++sl) ntt.fill_random(sl, L, 1000 + 3 * rep + sl);
            ntt.synchronize();
            // The kernels, as run_kernels issues them.
            double th = time_ms([&] {
                ntt.compute_h_resident(L);
                ntt.synchronize();
            });
            double thm = time_ms([&] {
                g1.use_scalars_device(ntt.device_data(0), n_h);
                cuda::msm_report hr;
                g1.run_uploaded_range(first_h, n_h, &hr, g1_opt);
                h_passes = hr.passes;
            });
            // The kernel rows below need the scalars uploaded either way; --no-pageable only leaves it untimed.
            auto upload_ms = [&](auto& ctx, const std::vector<fr_t>& v) {
                return pageable ? time_ms([&] { ctx.upload_scalars(v); }) : (ctx.upload_scalars(v), 0.0);
            };
            double lup = upload_ms(g1, aux);
            double tl = time_ms([&] { l_res = g1.run_uploaded_range(first_l, n_l, nullptr, g1_opt); });
            double aup = upload_ms(g1, a_sc);
            double ta = time_ms([&] { a_res = g1.run_uploaded_range(first_a, n_a, nullptr, g1_opt); });
            double bup = upload_ms(g1, b_sc);
            double tb = time_ms([&] { b_res = g1.run_uploaded_range(first_b, n_b, nullptr, g1_opt); });
            double bup2 = upload_ms(g2, b_sc);
            double tb2 = time_ms([&] { b2_res = g2.run_uploaded(n_b, nullptr, g2_opt); });
            const double kern = th + thm + tl + ta + tb + tb2;
            if (phases && rep == reps) {
                // Each query's MSM once more, its phases timed on the device (msm_options::timing).
                auto print_phases = [&](const char* what, auto& ctx, const std::vector<fr_t>& sc, size_t first,
                                        const cuda::msm_options& opt) {
                    ctx.upload_scalars(sc);
                    cuda::msm_report pr;
                    cuda::msm_options o = opt;
                    o.timing = true;
                    ctx.run_uploaded_range(first, sc.size(), &pr, o);
                    std::printf("  %s phases, ms: classify %.1f, ones %.1f, sort %.1f, accumulate %.1f, reduce %.1f,"
                                " finish %.1f (%zu zeros, %zu ones, %zu others; c %u, %u windows)\n",
                                what, pr.ms_classify, pr.ms_ones, pr.ms_sort, pr.ms_accumulate, pr.ms_reduce,
                                pr.ms_finish, pr.zeros, pr.ones, pr.others, pr.window_bits, pr.windows);
                };
                print_phases("L", g1, aux, first_l, g1_opt);
                print_phases("A", g1, a_sc, first_a, g1_opt);
                print_phases("B_G1", g1, b_sc, first_b, g1_opt);
                print_phases("B_G2", g2, b_sc, 0, g2_opt);
                std::fflush(stdout);
            }
            double tla = 0;
            if (a_shares_l) {
                g1.upload_scalars(aux);
                ec::jacobian_t<ff::fp_t> l, a;
                tla = time_ms([&] { l_and_a(l, a); });
                la_same = la_same && l == l_res && a == a_res;
            }
            peak = std::max(peak, device_used_gib());
            if (kernels_only) {
                std::printf("  rep %d: H %.1f, H MSM %.1f (%u passes), L %.1f, A %.1f (as one run %.1f), B_G1 %.1f, B_G2"
                            " %.1f ms (kernels %.1f); device memory in use %.1f GiB\n",
                            rep, th, thm, h_passes, tl, ta, tla, tb, tb2, kern, device_used_gib());
                std::fflush(stdout);
                if (rep == 0) continue;
                t_h.push_back(th), t_hmsm.push_back(thm), t_l.push_back(tl), t_a.push_back(ta), t_b.push_back(tb);
                t_b2.push_back(tb2), t_total.push_back(kern), t_la.push_back(tla);
                continue;
            }

            // The same copies from the same vectors page-locked, as the backend does: pinned in prepare (CPU,
            // before the lock), copied under the lock, unpinned in finish (after it).
            std::vector<cuda::host_pin> pins;
            auto pin = [&](const std::vector<fr_t>& v) {
                pins.emplace_back(0, v.data(), v.size() * sizeof(fr_t));
                if (!pins.back().pinned() && pin_refused.empty()) pin_refused = pins.back().error();
            };
            double pr = time_ms([&] {
                for (const auto* r : rows) pin(*r);
            });
            double pl = time_ms([&] { pin(aux); });
            double pa = time_ms([&] { pin(a_sc); });
            double pb = time_ms([&] { pin(b_sc); });
            double trp = time_ms([&] {
                for (int sl = 0; sl < 3; ++sl) ntt.load(sl, *rows[sl]);
                ntt.synchronize();
            });
            if (rep == 0) {
                // Row a back from the device: the pinned copy carried the same bytes.
                std::vector<fr_t> back(m);
                ntt.store(0, back);
                readback_ok = back == row_a;
            }
            double lupp = time_ms([&] { g1.upload_scalars(aux); });
            double aupp = time_ms([&] { g1.upload_scalars(a_sc); });
            double bupp = time_ms([&] { g1.upload_scalars(b_sc); });
            double bupp2 = time_ms([&] { g2.upload_scalars(b_sc); });
            // As cuda_backend::run_kernels: rows copied on the NTT context's copy stream (each input's transforms
            // start as its copy lands), the L and A scalars into the freed NTT slots beside the H MSM and B_G1's
            // into H's slot after it, every G1 MSM reading its scalars in its slot, B_G2 (its own upload) in a
            // second thread beside the G1 work. Results checked against the runs above.
            const bool stageable = n_l <= m && n_a <= m && n_b <= m;
            ec::jacobian_t<ff::fp_t> gl, ga, gb;
            ec::jacobian_t<ff::fp2_t> gb2;
            // The end of each step, ms from the start: B_G2's upload (b2 up), H on the device, the H MSM, L, A,
            // B_G1, B_G2 joined; with the next partition's B_G2 scalars copied by the B_G2 thread (prestaged),
            // when that copy ended (b2 next).
            enum { b2_up, h_done, hmsm_done, l_done, a_done, b_done, b2_done, b2_next, a_next, steps };
            // rows_first: gpud's order of commit 64c2c09; b_g2_first: of 2b459e7; prestaged: of c57b61e
            // in a steady state, where the previous holder copied this partition's B_G2 scalars (none to copy at
            // the start) and this one copies the next's (the same vector here: a partition of the same shape)
            // through the same prestage_board as cuda_backend, in the window from the H transforms to the
            // kernels' end; b_g1_first: prestaged with B_G1's MSM beside the rows' copies, reading B_G2's scalars
            // in the G2 context, before that window opens; row_a_prestaged: gpud's now, b_g1_first with row a
            // too copied by the previous holder's B_G2 thread into the NTT context's spare slot (here: by the
            // b_g1_first run before it), which becomes slot 0. Both copy the next's row a into the spare.
            enum class order { rows_first, b_g2_first, prestaged, b_g1_first, row_a_prestaged };
            auto early_b_g1 = [](order o) { return o == order::b_g1_first || o == order::row_a_prestaged; };
            // The spare NTT slot gpud keeps for the waiting partition's row a where the device has room for it.
            have_spare = true;
            try {
                ntt.reserve_spare(L);
            } catch (const std::exception& e) {
                have_spare = false;
                if (rep == 0) std::printf("  no spare NTT slot (%s): row a is not prestaged\n", e.what());
            }
            struct next_partition {};
            gpud::prestage_board<next_partition, void> board;
            next_partition next;
            auto gpud_sequence = [&](order o, double* at) {
                for (int i = 0; i < steps; ++i) at[i] = 0;
                const double t0 = now_ms();
                std::thread b_g2;
                if (o == order::prestaged || early_b_g1(o)) board.offer(&next, nullptr);
                board.begin();
                if (o == order::b_g2_first) {
                    g2.upload_scalars(b_sc);
                    at[b2_up] = now_ms() - t0;
                }
                b_g2 = std::thread([&] {
                    if (o == order::rows_first) {
                        g2.upload_scalars(b_sc);
                        at[b2_up] = now_ms() - t0;
                    }
                    gb2 = g2.run_uploaded(n_b, nullptr, g2_opt);
                    if (board.take(nullptr)) {
                        g2.upload_scalars(b_sc);
                        at[b2_next] = now_ms() - t0;
                        if (early_b_g1(o) && have_spare) {
                            ntt.fill_spare(*rows[0], L);
                            at[a_next] = now_ms() - t0;
                        }
                        board.done();
                    }
                });
                struct join_on_exit {
                    std::thread& t;
                    decltype(board)& b;
                    ~join_on_exit() {
                        b.close();
                        if (t.joinable()) t.join();
                    }
                } joined{b_g2, board};
                const bool row_a_ready = o == order::row_a_prestaged && have_spare;
                if (row_a_ready) ntt.adopt_spare(0);  // filled by the b_g1_first run before, as by a holder
                for (int sl = row_a_ready ? 1 : 0; sl < 3; ++sl) ntt.load_padded_async(sl, *rows[sl], L);
                ntt.compute_h_resident(L);
                if (early_b_g1(o)) {
                    g1.use_scalars_device(g2.scalars_device(), n_b);
                    gb = g1.run_uploaded_range(first_b, n_b, nullptr, g1_opt);
                    at[b_done] = now_ms() - t0;
                }
                ntt.synchronize();
                at[h_done] = now_ms() - t0;
                board.open();
                g1.use_scalars_device(ntt.device_data(0), n_h);
                if (stageable) {
                    ntt.load_padded_async(1, aux, L);
                    if (separate_la) ntt.load_padded_async(2, a_sc, L);
                }
                g1.run_uploaded_range(first_h, n_h, nullptr, g1_opt);
                at[hmsm_done] = now_ms() - t0;
                if (stageable && !early_b_g1(o)) ntt.load_padded_async(0, b_sc, L);  // slot 0: H MSM done
                auto staged_run = [&](int slot, const std::vector<fr_t>& sc, size_t first, size_t count) {
                    if (stageable) g1.use_scalars_device(ntt.device_data(slot), count);
                    else g1.upload_scalars(sc);
                    return g1.run_uploaded_range(first, count, nullptr, g1_opt);
                };
                if (separate_la) {
                    gl = staged_run(1, aux, first_l, n_l);
                    at[l_done] = now_ms() - t0;
                    ga = staged_run(2, a_sc, first_a, n_a);
                } else {
                    if (stageable) g1.use_scalars_device(ntt.device_data(1), n_l);
                    else g1.upload_scalars(aux);
                    l_and_a(gl, ga);
                    at[l_done] = now_ms() - t0;  // with A: one run
                }
                at[a_done] = now_ms() - t0;
                if (!early_b_g1(o)) {
                    gb = staged_run(0, b_sc, first_b, n_b);
                    at[b_done] = now_ms() - t0;
                }
                board.close();
                b_g2.join();
                at[b2_done] = now_ms() - t0;
                return at[b2_done];
            };
            // The orders in turn, so each starts with b_sc in the G2 context (the prestaged run relies on it: the
            // run before copied it, as the previous holder would have).
            constexpr int n_orders = 5;
            const order orders[n_orders] = {order::b_g2_first, order::rows_first, order::prestaged,
                                            order::b_g1_first, order::row_a_prestaged};
            const char* order_names[n_orders] = {"B_G2's scalars first", "rows first", "B_G2's scalars prestaged",
                                                 "prestaged, B_G1 first", "prestaged with row a, B_G1 first"};
            double at_all[n_orders][steps], took[n_orders];
            for (int o = 0; o < n_orders; ++o) {
                took[o] = gpud_sequence(orders[o], at_all[o]);
                gpud_same = gpud_same && gl == l_res && ga == a_res && gb == b_res && gb2 == b2_res;
            }
            prestaged_copied = prestaged_copied && at_all[2][b2_next] > 0 && at_all[3][b2_next] > 0 &&
                               at_all[4][b2_next] > 0 && (!have_spare || (at_all[3][a_next] > 0 && at_all[4][a_next] > 0));
            for (int o = 0; o < n_orders; ++o) {
                const double* at = at_all[o];
                std::printf("  rep %d: gpud's sequence, %s: %.1f ms; steps ended at (ms): B_G2 scalars up %.1f, H %.1f,"
                            " H MSM %.1f, L %.1f, A %.1f, B_G1 %.1f, B_G2 %.1f, next B_G2 scalars up %.1f, next row a"
                            " up %.1f\n",
                            rep, order_names[o], at[b2_done], at[b2_up], at[h_done], at[hmsm_done], at[l_done],
                            at[a_done], at[b_done], at[b2_done], at[b2_next], at[a_next]);
            }
            double tun = time_ms([&] {
                for (auto& p : pins) p.unpin();
            });
            std::printf("  rep %d: H %.1f, H MSM %.1f, L %.1f, A %.1f, B_G1 %.1f, B_G2 %.1f ms (kernels %.1f); %stransfers:"
                        " rows %.1f, L %.1f, A %.1f, B %.1f + %.1f ms; device memory in use %.1f GiB\n"
                        "         pinned transfers: rows %.1f, L %.1f, A %.1f, B %.1f + %.1f ms; pin (CPU) rows %.1f,"
                        " L %.1f, A %.1f, B %.1f ms, unpin %.1f ms%s\n",
                        rep, th, thm, tl, ta, tb, tb2, kern, pageable ? "" : "(--no-pageable: not timed) ", tr, lup,
                        aup, bup, bup2, device_used_gib(), trp, lupp,
                        aupp, bupp, bupp2, pr, pl, pa, pb, tun, pin_refused.empty() ? "" : " (a range NOT pinned)");
            std::fflush(stdout);
            if (rep == 0) continue;
            t_rows.push_back(tr), t_h.push_back(th), t_hmsm.push_back(thm), t_lup.push_back(lup + bup2), t_l.push_back(tl);
            t_aup.push_back(aup), t_a.push_back(ta), t_bup.push_back(bup), t_b.push_back(tb), t_b2.push_back(tb2);
            t_total.push_back(kern), t_la.push_back(tla);
            p_rows.push_back(trp), p_lup.push_back(lupp + bupp2), p_aup.push_back(aupp), p_bup.push_back(bupp);
            t_gpud_first.push_back(took[0]), t_gpud_rows_first.push_back(took[1]);
            t_gpud_prestaged.push_back(took[2]), t_gpud_b_g1_first.push_back(took[3]), t_gpud.push_back(took[4]);
            r_rows.push_back(pr), r_l.push_back(pl), r_a.push_back(pa), r_b.push_back(pb), r_unpin.push_back(tun);
        }
        const double kern = median(t_total);
        snprintf(note, sizeof note, "median of %d; target <= 600 ms: %s; device memory in use %.1f GiB", reps,
                 kern <= 600 ? "met" : "NOT met", peak);
        record("partition (synthetic 32 GiB shape): GPU kernels", kern, note);
        record("  H: 6 NTTs + a*b + /Z - C at 2^" + std::to_string(L), median(t_h), "resident");
        record("  H MSM 2^" + std::to_string(L) + " - 1", median(t_hmsm), "scalars read in the NTT slot");
        record("  L MSM " + std::to_string(n_l), median(t_l), q_l.mix.name);
        record("  A MSM " + std::to_string(n_a), median(t_a), q_a.mix.name);
        if (a_shares_l) {
            snprintf(note, sizeof note, "one run over the aux scalars against both ranges (gpud%s), and A's %zu inputs;"
                     " %s the separate runs; kernels with it %.1f ms", separate_la ? " without --separate-la" : "",
                     a_inputs, la_same ? "equal to" : "DIFFERENT from", kern - median(t_l) - median(t_a) + median(t_la));
            record("  L and A as one MSM run", median(t_la), note);
            if (!la_same) return 1;
        }
        record("  B_G1 MSM " + std::to_string(n_b), median(t_b), q_b.mix.name);
        record("  B_G2 MSM " + std::to_string(n_b), median(t_b2), q_b.mix.name + ", on the GPU (the backend's default)");
        std::snprintf(note, sizeof note, "%u Pippenger passes over its windows", h_passes);
        record("  H MSM passes", 0, note);
        if (!kernels_only) {
            const double xfer = pageable ? median(t_rows) + median(t_lup) + median(t_aup) + median(t_bup) : 0;
            if (pageable) {
                snprintf(note, sizeof note, "rows a,b,c %.0f + L and B_G2 %.0f + A %.0f + B %.0f ms, pageable host memory",
                         median(t_rows), median(t_lup), median(t_aup), median(t_bup));
                record("partition: host-to-device copies", xfer, note);
            }
            const double xfer_p = median(p_rows) + median(p_lup) + median(p_aup) + median(p_bup);
            const double copied_gib = rows_gib + scalars_gib + double(n_b) * sizeof(fr_t) / gib;
            snprintf(note, sizeof note,
                     "rows a,b,c %.0f + L and B_G2 %.0f + A %.0f + B %.0f ms, pinned host memory (host_pin); "
                     "%.1f GiB at %.1f GiB/s (pageable: %.1f GiB/s, 0: not timed); row a read back %s%s%s",
                     median(p_rows), median(p_lup), median(p_aup), median(p_bup), copied_gib, copied_gib / (xfer_p / 1e3),
                     pageable ? copied_gib / (xfer / 1e3) : 0.0, readback_ok ? "equal" : "DIFFERENT",
                     pin_refused.empty() ? "" : "; NOT all pinned: ", pin_refused.c_str());
            record("partition: host-to-device copies, pinned", xfer_p, note);
            const double reg = median(r_rows) + median(r_l) + median(r_a) + median(r_b);
            snprintf(note, sizeof note,
                     "CPU, outside the CUDA lock (gpud: in prepare); cudaHostRegister of rows a,b,c %.0f + L %.0f + A %.0f"
                     " + B %.0f ms; %.1f GiB at %.1f GiB/s",
                     median(r_rows), median(r_l), median(r_a), median(r_b), rows_gib + scalars_gib,
                     (rows_gib + scalars_gib) / (reg / 1e3));
            record("partition: pinning the copied ranges", reg, note);
            record("partition: unpinning them", median(r_unpin),
                   "CPU, outside the CUDA lock (gpud: in finish); cudaHostUnregister of the 6 ranges");
            if (pageable) {
                snprintf(note, sizeof note, "kernels %.0f + pageable copies %.0f ms", kern, xfer);
                record("partition: GPU work under the lock, pageable copies", kern + xfer, note);
            }
            snprintf(note, sizeof note, "kernels %.0f + pinned copies %.0f ms; pinning %.0f + unpinning %.0f ms moved"
                     " to the CPU outside the lock", kern, xfer_p, reg, median(r_unpin));
            record("partition: GPU work under the lock, pinned copies", kern + xfer_p, note);
            snprintf(note, sizeof note, "median of %d; as gpud runs it in a steady state: B_G2's scalars %scopied by the"
                     " previous partition, the next's copied under the H MSM, the rows' and the L/A scalars' copies"
                     " beside the kernels, B_G2 and B_G1 (reading B_G2's scalars) beside the rows' copies; L, A, B_G1,"
                     " B_G2 %s%s", reps, have_spare ? "and row a " : "(not row a: no room for the spare slot) ",
                     gpud_same ? "equal to the runs above" : "DIFFERENT",
                     prestaged_copied ? "" : "; the next's scalars or row a were NOT copied");
            record("partition: GPU work under the lock, gpud's sequence", median(t_gpud), note);
            snprintf(note, sizeof note, "median of %d; gpud's order of commit c57b61e: B_G1 after A, its scalars copied"
                     " into H's slot", reps);
            record("partition: GPU work under the lock, B_G2 prestaged, B_G1 last", median(t_gpud_prestaged), note);
            snprintf(note, sizeof note, "median of %d; B_G1 beside the rows' copies, row a"
                     " copied under the lock", reps);
            record("partition: GPU work under the lock, B_G1 first, row a not prestaged", median(t_gpud_b_g1_first),
                   note);
            snprintf(note, sizeof note, "median of %d; gpud's order of commit 2b459e7: B_G2's scalars copied first",
                     reps);
            record("partition: GPU work under the lock, B_G2's scalars first", median(t_gpud_first), note);
            snprintf(note, sizeof note, "median of %d; gpud's order of commit 64c2c09: B_G2's upload beside row a's copy",
                     reps);
            record("partition: GPU work under the lock, rows first", median(t_gpud_rows_first), note);
            if (!readback_ok || !gpud_same || !prestaged_copied || !la_same) return 1;
        }  // !kernels_only

        // Pinning next to GPU work: the kernels and the L/A/B uploads (their ranges pinned, as under the lock
        // in gpud), alone and while another thread pins and unpins the rows (which this sequence does not read).
        cuda::host_pin pin_l(0, aux.data(), aux.size() * sizeof(fr_t)), pin_a(0, a_sc.data(), a_sc.size() * sizeof(fr_t)),
            pin_b(0, b_sc.data(), b_sc.size() * sizeof(fr_t));
        // H, its MSM, L, A and B_G1 (returns B_G1's result), then B_G2's upload and MSM.
        auto g1_work = [&] {
            ntt.compute_h_resident(L);
            ntt.synchronize();
            g1.upload_scalars_device(ntt.device_data(0), n_h);
            g1.run_uploaded_range(first_h, n_h, nullptr, g1_opt);
            g1.upload_scalars(aux);
            g1.run_uploaded_range(first_l, n_l, nullptr, g1_opt);
            g1.upload_scalars(a_sc);
            g1.run_uploaded_range(first_a, n_a, nullptr, g1_opt);
            g1.upload_scalars(b_sc);
            return g1.run_uploaded_range(first_b, n_b, nullptr, g1_opt);
        };
        auto g2_work = [&] {
            g2.upload_scalars(b_sc);
            return g2.run_uploaded(n_b, nullptr, g2_opt);
        };
        auto gpu_work = [&](int rep) {
            for (int sl = 0; sl < 3; ++sl) ntt.fill_random(sl, L, 5000 + 3 * rep + sl);
            ntt.synchronize();
            return time_ms([&] {
                g1_work();
                g2_work();
            });
        };
        std::vector<double> alone, beside;
        for (int rep = 0; rep < reps; ++rep) alone.push_back(gpu_work(rep));

        // B_G2 beside the G1 work instead of after it: its own context (stream, scratch) driven by a second host
        // thread, as the backend runs it (cuda_backend::run_kernels), so its kernels fill what the NTTs, sorts and
        // reductions leave of the GPU. The B_G2 and B_G1 results must equal those of the sequence one after another.
        {
            const auto want_g2 = g2_work();
            g1.upload_scalars(b_sc);
            const auto want_b = g1.run_uploaded_range(first_b, n_b);
            std::vector<double> side;
            bool same = true;
            for (int rep = 0; rep < reps; ++rep) {
                for (int sl = 0; sl < 3; ++sl) ntt.fill_random(sl, L, 7000 + 3 * rep + sl);
                ntt.synchronize();
                ec::jacobian_t<ff::fp2_t> got_g2;
                ec::jacobian_t<ff::fp_t> got_b;
                side.push_back(time_ms([&] {
                    std::thread b_g2([&] { got_g2 = g2_work(); });
                    got_b = g1_work();
                    b_g2.join();
                }));
                same = same && got_g2 == want_g2 && got_b == want_b;
            }
            snprintf(note, sizeof note, "median of %d; one after another (with uploads) %.0f ms; B_G2 and B_G1 %s",
                     reps, median(alone), same ? "equal to theirs" : "DIFFERENT from theirs");
            record("partition: GPU work, B_G2 beside the G1 work (second thread)", median(side), note);
            std::printf("B_G2 beside the G1 work: %.1f ms against %.1f one after another; results %s\n", median(side),
                        median(alone), same ? "equal" : "DIFFERENT");
            std::fflush(stdout);
            if (!same) return 1;
        }
        if (has_flag(argc, argv, "--h-sweep")) {
            // The H MSM alone under other bucket sums and widths, each result checked against the default's.
            for (int sl = 0; sl < 3; ++sl) ntt.fill_random(sl, L, 9000 + sl);
            ntt.compute_h_resident(L);
            ntt.synchronize();
            g1.upload_scalars_device(ntt.device_data(0), n_h);
            cuda::msm_report dr;
            const auto want = g1.run_uploaded_range(first_h, n_h, &dr);
            struct setting {
                cuda::msm_sum buckets;
                unsigned c;
            };
            using S = cuda::msm_sum;
            for (const setting st : {setting{S::by_size, 0}, setting{S::batch_affine, 22}, setting{S::batch_affine, 21},
                                     setting{S::batch_affine, 20}, setting{S::xyzz, 21}}) {
                cuda::msm_options o;
                o.buckets = st.buckets;
                o.window_bits = st.c;
                bool same = true;
                const double ms =
                    median_ms(2, [&] { same = same && g1.run_uploaded_range(first_h, n_h, nullptr, o) == want; });
                std::snprintf(note, sizeof note, "%s (default: c=%u, %s)", same ? "== default" : "MISMATCH with the default",
                              dr.window_bits, dr.batch_affine ? "batch-affine" : "XYZZ");
                const char* sum = st.buckets == S::by_size ? "by size" : st.buckets == S::xyzz ? "XYZZ" : "batch-affine";
                record("  H MSM, " + std::string(sum) + ", c=" + std::to_string(st.c), ms, note);
                if (!same) return 1;
            }
        }
        if (kernels_only || !pageable) return 0;  // not the pinning-beside step either
        std::atomic<bool> stop{false};
        std::atomic<int> cycles{0};
        std::string pinner_error;
        double pinner_ms = 0;
        std::thread pinner([&] {
            const double p0 = now_ms();
            try {
                while (!stop) {
                    std::vector<cuda::host_pin> ps;
                    for (const auto* r : rows) ps.emplace_back(0, r->data(), r->size() * sizeof(fr_t));
                    for (auto& p : ps) p.unpin();
                    ++cycles;
                }
            } catch (const std::exception& e) {
                pinner_error = e.what();
            }
            pinner_ms = now_ms() - p0;
        });
        try {
            for (int rep = 0; rep < reps; ++rep) beside.push_back(gpu_work(reps + rep));
        } catch (...) {
            stop = true;
            pinner.join();
            throw;
        }
        stop = true;
        pinner.join();
        snprintf(note, sizeof note, "median of %d; L/A/B scalars pinned%s", reps,
                 pin_l.pinned() && pin_a.pinned() && pin_b.pinned() ? "" : " (NOT all: refused)");
        record("partition: kernels + L/A/B uploads, alone", median(alone), note);
        snprintf(note, sizeof note,
                 "median of %d, while another thread pinned and unpinned rows a,b,c (%.1f GiB) %d times, %.0f ms "
                 "per cycle%s%s",
                 reps, rows_gib, cycles.load(), cycles > 0 ? pinner_ms / cycles : 0.0,
                 pinner_error.empty() ? "" : "; pinning thread failed: ", pinner_error.c_str());
        record("partition: kernels + L/A/B uploads, pinning beside", median(beside), note);
    }
    {
        auto seeds = seeds_for<ff::fp2_t>(size_t(1) << 20, 33);
        cuda::g2_msm_context small;
        const size_t n = size_t(1) << 20;
        small.generate_points(n, seeds);
        auto pts = small.download_points();
        std::span<const fr_t> s(b_sc.data(), n);
        ec::g2_jacobian_t want;
        double cpu = median_ms(1, [&] { want = msm::multi_exp<ff::fp2_t>(std::span<const ec::g2_affine_t>(pts), s); });
        bool ok = small.run(s) == want;
        char note[160];
        snprintf(note, sizeof note, "PoRep-like, %d CPU threads; x%.0f for %zu points: ~%.0f ms; GPU %s CPU",
                 int(std::thread::hardware_concurrency()), double(n_b) / double(n), n_b, cpu * double(n_b) / double(n),
                 ok ? "==" : "!=");
        record("  B_G2 MSM 2^20 on the CPU", cpu, note);
        if (!ok) return 1;
    }
    return 0;
}

}  // namespace

// --one-msm: one G1 (or, with --g2, G2) MSM of 2^max_log_msm random points, timed with the options given
// and checked against the default options' result (a short run for profilers and sweeps).
template <class F>
int one_msm(int argc, char** argv, int max_log_msm, int reps) {
    try {
        const size_t n = size_t(1) << max_log_msm;
        cuda::msm_context<F> ctx;
        ctx.generate_points(n, seeds_for<F>(n, 1));
        const bool porep = has_flag(argc, argv, "--porep");
        auto sc = make_scalars(n, porep, 7);
        ctx.upload_scalars(sc);
        cuda::msm_options opt;
        opt.buckets = sum_arg(argc, argv, "--buckets");
        opt.ones = sum_arg(argc, argv, "--ones");
        // --with-multiples C: through precomputed window multiples of width C, the default run as well.
        const unsigned mc = unsigned(arg_int(argc, argv, "--with-multiples", 0));
        if (mc && ctx.precompute_window_multiples(mc) != mc)
            throw std::runtime_error("--with-multiples " + std::to_string(mc) + ": the multiples were not made");
        const auto want = ctx.run_uploaded(n);
        // --window-bits and --uniform-windows may be lists ("20,22"): each combination timed in turn on the same
        // points and scalars.
        std::vector<cuda::msm_options> runs;
        for (unsigned bits : arg_list(argc, argv, "--window-bits", 0))
            for (unsigned uniform : arg_list(argc, argv, "--uniform-windows", 0)) {
                runs.push_back(opt);
                runs.back().window_bits = bits;
                runs.back().uniform_windows = uniform != 0;
            }
        bool all_same = true;
        for (const cuda::msm_options& o : runs) {
            bool same = true;
            cuda::msm_report rep;
            double ms = median_ms(reps, [&] { same = same && ctx.run_uploaded(n, &rep, o) == want; });
            cuda::msm_options timed = o;
            timed.timing = true;
            ctx.run_uploaded(n, &rep, timed);
            std::printf("%s MSM 2^%d%s: %.2f ms (buckets %s, ones %s, c %u (%u of %u windows that wide)%s; phases ms: "
                        "classify %.1f, ones %.1f, sort %.1f, accumulate %.1f, reduce %.1f, finish %.1f; %zu ones, %zu "
                        "others), %s\n",
                        std::is_same_v<F, ff::fp_t> ? "G1" : "G2", max_log_msm, porep ? " PoRep-like" : " random", ms,
                        rep.batch_affine ? "batch-affine" : "XYZZ", sum_name(o.ones), rep.window_bits,
                        rep.wide_windows, rep.windows, rep.multiples ? " with multiples" : "", rep.ms_classify,
                        rep.ms_ones, rep.ms_sort, rep.ms_accumulate, rep.ms_reduce, rep.ms_finish, rep.ones,
                        rep.others, same ? "== default options" : "MISMATCH with the default options");
            if (rep.batch_affine) {
                using R = cuda::msm_report;
                std::printf("  batch-affine kernels within the accumulation, ms (one stream only): first pairs %.1f, "
                            "inversions %.1f, sums %.1f, later pairs %.1f, rests %.1f\n",
                            rep.ms_affine[R::AFFINE_FIRST_PAIRS], rep.ms_affine[R::AFFINE_INVERT],
                            rep.ms_affine[R::AFFINE_SUMS], rep.ms_affine[R::AFFINE_PAIRS], rep.ms_affine[R::AFFINE_REST]);
            }
            std::fflush(stdout);
            all_same = all_same && same;
        }
        return all_same ? 0 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}


// --r1cs: the R1CS evaluation on the GPU (gpud/cuda/r1cs_witness.hpp) for one circuit: the matrices recorded (or
// read from --matrix-file) and uploaded once, the witness synthesized into a witness_assignment (inputs in full,
// aux compact), then per step the median of --reps runs after a warm-up: the witness's upload from pageable and
// from page-locked memory, z expanded, the rows a, b, c written into an NTT context's slots from the compact
// witness and from z, the A and B scalars gathered both ways, and H from the rows where they lie. Unless
// --no-check, every result is compared with the CPU's (r1cs::evaluate_rows over the expanded witness, the
// density gathers of prepare_partition). Recording and synthesis are CPU time, reported apart.
int r1cs_bench(int argc, char** argv) {
    const std::string spec = arg_str(argc, argv, "--circuit") ? arg_str(argc, argv, "--circuit") : "sha256:64";
    const int reps = arg_int(argc, argv, "--reps", 5);
    const bool check = !has_flag(argc, argv, "--no-check");
    const char* matrix_path = arg_str(argc, argv, "--matrix-file");
    const double gb = 1e9;

    // The circuit: porep-synthetic:<proof>[@seed] synthesizes a synthetic witness of the proof's shape (its rows
    // are the real ones, its values random: the system is not satisfied); anything else is the registry's.
    std::function<void(cs::constraint_system&)> synthesize_witness;
    std::function<r1cs::r1cs_matrices()> record_blank;
    std::unique_ptr<circuits::circuit> circuit;
    std::optional<porep::partition_witness> synthetic;
    std::optional<porep::stacked_circuit_shape> shape;
    std::string label;  // what a matrix file is recorded for
    const std::string synthetic_prefix = "porep-synthetic:";
    if (spec.rfind(synthetic_prefix, 0) == 0) {
        std::string name = spec.substr(synthetic_prefix.size()), seed = "1";
        if (const size_t at = name.find('@'); at != std::string::npos) {
            seed = name.substr(at + 1);
            name = name.substr(0, at);
        }
        const porep::registered_proof& proof = porep::registered_proof_by_name(name);
        shape = porep::stacked_circuit_shape::of(proof);
        double t0 = now_ms();
        synthetic = porep::make_synthetic_witness(*shape, proof.nodes, std::stoull(seed));
        record("r1cs: synthetic PoRep witness made (CPU)", now_ms() - t0,
               "SYNTHETIC witness of " + name + ": random values, not satisfied; real rows and sizes");
        synthesize_witness = [&](cs::constraint_system& cs) { porep::synthesize_stacked_partition(cs, *shape, &*synthetic); };
        record_blank = [&proof] { return r1cs::record_porep_matrices(proof); };
        label = "porep:" + name;  // the rows do not depend on the witness
    } else {
        circuit = circuits::make_circuit(spec);
        synthesize_witness = [&](cs::constraint_system& cs) { circuit->synthesize(cs); };
        record_blank = [&] { return r1cs::record_matrices(*circuit); };
        label = spec;
    }
    std::printf("R1CS evaluation on the GPU, circuit %s\ndevice: %s\n", spec.c_str(), cuda::device_description(0).c_str());

    double t0 = now_ms();
    r1cs::r1cs_matrices m;
    if (matrix_path && std::filesystem::exists(matrix_path)) {
        m = r1cs::read_matrix_file(matrix_path, label);
        record("r1cs: matrices read (CPU)", now_ms() - t0, matrix_path);
    } else {
        m = record_blank();
        record("r1cs: matrices recorded (CPU)", now_ms() - t0, "two blank syntheses: count, record");
        if (matrix_path) {
            t0 = now_ms();
            r1cs::write_matrix_file(matrix_path, m, label);
            record("r1cs: matrices written (CPU)", now_ms() - t0, matrix_path);
        }
    }
    t0 = now_ms();
    witness::witness_assignment wa;
    synthesize_witness(wa);
    const witness::compact_vector_view aux = wa.aux();
    char note[400];
    std::snprintf(note, sizeof note, "%llu inputs, %llu aux values of which %llu full (%.2f%%)",
                  (unsigned long long)wa.num_inputs(), (unsigned long long)aux.size, (unsigned long long)aux.full.size(),
                  aux.size ? 100.0 * double(aux.full.size()) / double(aux.size) : 0.0);
    record("r1cs: witness synthesized (CPU, one thread)", now_ms() - t0, note);
    if (wa.num_circuit_constraints() != m.circuit_rows)
        throw std::runtime_error("the witness has " + std::to_string(wa.num_circuit_constraints()) +
                                 " rows, the matrices " + std::to_string(m.circuit_rows));

    t0 = now_ms();
    const cuda::r1cs_device dm(m);
    const double rows_bytes = 6.0 * double(dm.non_zeros()) + 12.0 * double(dm.circuit_rows());
    std::snprintf(note, sizeof note,
                  "%llu rows, %llu terms (A %llu, B %llu, C %llu), %llu coefficients; %llu long rows with %llu terms; "
                  "%.2f GB on the device",
                  (unsigned long long)dm.circuit_rows(), (unsigned long long)dm.non_zeros(),
                  (unsigned long long)m.a.non_zeros(), (unsigned long long)m.b.non_zeros(),
                  (unsigned long long)m.c.non_zeros(), (unsigned long long)m.coefficients.size(),
                  (unsigned long long)dm.long_rows(), (unsigned long long)dm.long_row_terms(),
                  double(dm.device_bytes()) / gb);
    record("r1cs: matrices uploaded (once per parameters)", now_ms() - t0, note);

    const unsigned L = [&] {
        unsigned l = 0;
        while ((uint64_t(1) << l) < dm.prover_rows()) ++l;
        return l;
    }();
    const uint64_t n = uint64_t(1) << L;
    cuda::r1cs_witness w;
    cuda::ntt_context ntt;
    ntt.prepare(L);
    ff::fr_t* slots[3];
    for (int s = 0; s < 3; ++s) slots[s] = ntt.slot_for_writing(s, L);

    auto rate = [gb](double bytes, double ms) {
        char r[40];
        std::snprintf(r, sizeof r, "%.1f GB/s", bytes / gb / (ms / 1e3));
        return std::string(r);
    };
    double ms = median_ms(reps, [&] { w.upload(dm, wa.inputs(), aux); });
    const double up_bytes = double(w.uploaded_bytes());
    std::snprintf(note, sizeof note, "%.1f MB (the full rows and aux would be %.1f GB); ", up_bytes / 1e6,
                  (3.0 * double(n) + double(aux.size)) * 32 / gb);
    record("r1cs: witness upload, pageable", ms, note + rate(up_bytes, ms));
    {
        std::vector<cuda::host_pin> pins;
        pins.emplace_back(0, wa.inputs().data(), wa.inputs().size_bytes());
        pins.emplace_back(0, aux.full_mask.data(), aux.full_mask.size_bytes());
        pins.emplace_back(0, aux.bit_value.data(), aux.bit_value.size_bytes());
        pins.emplace_back(0, aux.full_before.data(), aux.full_before.size_bytes());
        pins.emplace_back(0, aux.full.data(), aux.full.size_bytes());
        bool all = true;
        for (const auto& p : pins) all = all && (p.pinned() || p.bytes() == 0);
        ms = median_ms(reps, [&] { w.upload(dm, wa.inputs(), aux); });
        record("r1cs: witness upload, page-locked", ms, rate(up_bytes, ms) + (all ? "" : "; some ranges not pinned"));
    }
    const double expand_ms = median_ms(reps, [&] { w.expand(dm); });
    record("r1cs: z expanded (aux from the compact vector)", expand_ms,
           rate(double(dm.num_aux()) * 32, expand_ms) + " written");
    double rows_ms[2], gather_ms[2];
    const char* how[2] = {"from the compact witness", "from z"};
    const cuda::z_source from[2] = {cuda::z_source::compact, cuda::z_source::expanded};
    for (int i = 0; i < 2; ++i) {
        rows_ms[i] = median_ms(reps, [&] { w.evaluate_rows(dm, slots[0], slots[1], slots[2], L, from[i]); });
        std::snprintf(note, sizeof note, "%.2f G terms/s; %s of matrix data; 2^%u rows each",
                      double(dm.non_zeros()) / 1e9 / (rows_ms[i] / 1e3), rate(rows_bytes, rows_ms[i]).c_str(), L);
        record(std::string("r1cs: rows a, b, c ") + how[i], rows_ms[i], note);
        gather_ms[i] = median_ms(reps, [&] { w.gather_scalars(dm, from[i]); });
        const double gathered = double(w.b_scalar_count() + (w.a_scalars() == w.z() ? 0 : w.a_scalar_count()));
        std::snprintf(note, sizeof note, "A %zu%s, B %zu scalars; %s written", w.a_scalar_count(),
                      w.a_scalars() == w.z() ? " (z itself)" : "", w.b_scalar_count(),
                      rate(gathered * 32, gather_ms[i]).c_str());
        record(std::string("r1cs: A and B scalars gathered ") + how[i], gather_ms[i], note);
    }
    const int best = rows_ms[0] + gather_ms[0] <= rows_ms[1] + gather_ms[1] ? 0 : 1;
    record("r1cs: expand + rows + gathers", expand_ms + rows_ms[best] + gather_ms[best],
           std::string("rows and gathers ") + how[best] + " (the faster); the issue's target for a, b, c: 60 ms");
    w.evaluate_rows(dm, slots[0], slots[1], slots[2], L);
    ms = time_ms([&] {
        ntt.compute_h_resident(L);
        ntt.synchronize();
    });
    record("r1cs: H from the rows in the NTT slots (once)", ms, "for scale");

    if (!check) return 0;
    t0 = now_ms();
    const std::vector<fr_t> aux_full = witness::expand(aux);
    const r1cs::prover_rows cpu = r1cs::evaluate_rows(m, wa.inputs(), aux_full);
    record("r1cs: CPU rows for the check (TBB)", now_ms() - t0, "r1cs::evaluate_rows over the expanded witness");
    bool same = true;
    auto compare = [&](const char* what, const std::vector<fr_t>& got, const std::vector<fr_t>& want) {
        const bool ok = got == want;
        same = same && ok;
        record(std::string("r1cs check: ") + what, 0, ok ? "GPU == CPU" : "MISMATCH");
    };
    auto download = [](const ff::fr_t* p, size_t count) {
        std::vector<fr_t> v(count);
        if (count && cudaMemcpy(v.data(), p, count * sizeof(fr_t), cudaMemcpyDeviceToHost) != cudaSuccess)
            throw std::runtime_error("cudaMemcpy from the device failed");
        return v;
    };
    std::vector<fr_t> z(wa.inputs().begin(), wa.inputs().end());
    z.insert(z.end(), aux_full.begin(), aux_full.end());
    compare("z", download(w.z(), dm.z_size()), z);
    std::vector<fr_t>().swap(z);
    const std::vector<fr_t>* want[3] = {&cpu.a, &cpu.b, &cpu.c};
    for (int i = 0; i < 2; ++i) {
        for (int s = 0; s < 3; ++s) ntt.fill_random(s, L, 7 + s);
        ntt.synchronize();
        w.evaluate_rows(dm, slots[0], slots[1], slots[2], L, from[i]);
        for (int s = 0; s < 3; ++s) {
            std::vector<fr_t> got(n), padded(*want[s]);
            padded.resize(n, fr_t::zero());
            ntt.store(s, got);
            compare((std::string("row ") + "abc"[s] + " " + how[i]).c_str(), got, padded);
        }
    }
    const size_t n_in = wa.num_inputs();
    const groth16::density_view a_aux{m.a_aux_density, m.num_aux}, b_in{m.b_input_density, m.num_inputs},
        b_aux{m.b_aux_density, m.num_aux};
    std::vector<fr_t> want_a(wa.inputs().begin(), wa.inputs().end()), want_b(b_in.count() + b_aux.count());
    want_a.resize(n_in + a_aux.count());
    groth16::gather_dense(aux_full, a_aux, want_a.data() + n_in);
    groth16::gather_dense(wa.inputs(), b_in, want_b.data());
    groth16::gather_dense(aux_full, b_aux, want_b.data() + b_in.count());
    for (int i = 0; i < 2; ++i) {
        w.gather_scalars(dm, from[i]);
        compare((std::string("A scalars ") + how[i]).c_str(), download(w.a_scalars(), w.a_scalar_count()), want_a);
        compare((std::string("B scalars ") + how[i]).c_str(), download(w.b_scalars(), w.b_scalar_count()), want_b);
    }
    if (!same) std::printf("CHECK FAILED: a result above differs from the CPU's\n");
    return same ? 0 : 1;
}

// --compact-partition: gpud's CUDA backend proving one SYNTHETIC compact partition of a PoRep shape
// (StackedDrg32GiBV1_1 by default): prepare_compact and run_kernels as gpud calls them (cuda_backend.hpp,
// cuda_backend/compact_sequence.cpp), the witness copied from a region registered once as gpud's ring is. The
// circuit's real matrices (recorded, ~1-2 min at 32 GiB, or read from --matrix-file F, written there when
// missing); random parameters of the exact sizes (points made on the GPU, moved to host memory as a parameters
// object: ~47 GB of host memory at 32 GiB); an aux vector drawn with the census's fractions of zeros, ones and
// small values for L (--census F; else PoRep-like), the rest uniform random: not a satisfying witness, so no
// proof is finished. The first partition's run_kernels includes the matrices' and points' uploads and the
// device memory plan (logged); the later ones are the steady state.
int compact_bench(int argc, char** argv) {
    const std::string name = arg_str(argc, argv, "--registered-proof") ? arg_str(argc, argv, "--registered-proof")
                                                                       : "StackedDrg32GiBV1_1";
    const char* matrix_path = arg_str(argc, argv, "--matrix-file");
    const int reps = arg_int(argc, argv, "--reps", 3);
    const double gib = double(1ull << 30);
    scalar_mix mix = porep_like;
    if (const char* census_file = arg_str(argc, argv, "--census")) {
        std::ifstream in(census_file);
        if (!in) throw std::invalid_argument(std::string("--census ") + census_file + ": cannot read it");
        mix = census_query(nlohmann::json::parse(in), "l", census_file).mix;
    }
    const porep::registered_proof& proof = porep::registered_proof_by_name(name);
    const std::string label = "porep:" + name;
    std::printf("SYNTHETIC compact partition of %s (random points, random witness values; not a valid proof)\n"
                "device: %s\n", name.c_str(), cuda::device_description(0).c_str());

    double t0 = now_ms();
    r1cs::r1cs_matrices m;
    if (matrix_path && std::filesystem::exists(matrix_path)) {
        m = r1cs::read_matrix_file(matrix_path, label);
        record("compact: matrices read (CPU)", now_ms() - t0, matrix_path);
    } else {
        m = r1cs::record_porep_matrices(proof);
        record("compact: matrices recorded (CPU)", now_ms() - t0, "two blank syntheses: count, record");
        if (matrix_path) r1cs::write_matrix_file(matrix_path, m, label);
    }
    const groth16::density_view a_aux{m.a_aux_density, m.num_aux}, b_in{m.b_input_density, m.num_inputs},
        b_aux{m.b_aux_density, m.num_aux};
    unsigned L = 0;
    while ((uint64_t(1) << L) < m.prover_rows()) ++L;
    const size_t n_h = (size_t(1) << L) - 1, n_l = m.num_aux, n_a = m.num_inputs + a_aux.count(),
                 n_b = b_in.count() + b_aux.count();

    // The witness as a ring slot holds it: the inputs (ONE first), then the compact aux vector serialized.
    t0 = now_ms();
    std::vector<fr_t> inputs = make_scalars(m.num_inputs, scalar_mix{}, 41);
    inputs[0] = fr_t::one();
    witness::compact_vector_builder builder;
    for (const fr_t& v : make_scalars(n_l, mix, 42)) builder.push_back(v);
    const witness::compact_vector_view aux = builder.view();
    std::vector<uint64_t> slot((inputs.size() * 32 + witness::serialized_bytes(aux)) / 8 + 1);
    auto* bytes = reinterpret_cast<std::byte*>(slot.data());
    std::memcpy(bytes, inputs.data(), inputs.size() * 32);
    const std::span<std::byte> rest(bytes + inputs.size() * 32, slot.size() * 8 - inputs.size() * 32);
    witness::write(rest, aux);
    const gpud::compact_partition w{std::span<const fr_t>(reinterpret_cast<const fr_t*>(bytes), inputs.size()),
                                    witness::read(rest), &m};
    char note[400];
    std::snprintf(note, sizeof note, "%zu inputs, %llu aux values (%.2f%% full), %.1f MB; L mix %s", inputs.size(),
                  (unsigned long long)aux.size, 100.0 * double(aux.full.size()) / double(aux.size),
                  double(slot.size() * 8) / 1e6, mix.name.c_str());
    record("compact: witness made (CPU)", now_ms() - t0, note);

    // Parameters of the exact sizes, points made on the GPU and moved to host memory (the backend uploads them).
    t0 = now_ms();
    groth16::parameters params;
    {
        cuda::g1_msm_context g1;
        const auto seeds = seeds_for<ff::fp_t>(std::max({n_h, n_l, n_a, n_b}), 31);
        for (auto [q, n] : {std::pair{&params.h, n_h}, std::pair{&params.l, n_l}, std::pair{&params.a, n_a},
                            std::pair{&params.b_g1, n_b}}) {
            g1.generate_points(n, seeds);
            *q = g1.download_points();
        }
        cuda::g2_msm_context g2;
        g2.generate_points(n_b, seeds_for<ff::fp2_t>(n_b, 32));
        params.b_g2 = g2.download_points();
        params.vk.ic.assign(params.a.begin(), params.a.begin() + ptrdiff_t(m.num_inputs));
    }
    std::snprintf(note, sizeof note, "h %zu, l %zu, a %zu, b_g1/b_g2 %zu points; %.1f GiB", n_h, n_l, n_a, n_b,
                  double((n_h + n_l + n_a + n_b) * 96 + n_b * 192) / gib);
    record("compact: random parameters made (GPU, to host)", now_ms() - t0, note);

    // --params-memory P[,P...]: as [gpud] params_memory (auto by default, as gpud); several placements are proved
    // in turn, each by a backend of its own (the one before destroyed, its device memory freed), so one set of
    // random parameters serves them all. "P+sparse": P with [gpud] sparse_streaming on.
    const std::string placements = arg_str(argc, argv, "--params-memory") ? arg_str(argc, argv, "--params-memory")
                                                                          : "auto";
    for (size_t at = 0; at <= placements.size();) {
        const size_t comma = std::min(placements.find(',', at), placements.size());
        const std::string option = placements.substr(at, comma - at);
        at = comma + 1;
        const std::string sparse_suffix = "+sparse";
        const bool sparse = option.size() > sparse_suffix.size() && option.ends_with(sparse_suffix);
        const std::string placement = sparse ? option.substr(0, option.size() - sparse_suffix.size()) : option;
        const std::string tag = "compact " + option + ": ";
        gpud::cuda_backend be(0, {.placement = gpud::parse_params_placement(placement), .sparse_streaming = sparse});
        be.register_host_region(std::as_bytes(std::span<const uint64_t>(slot)));
        auto prove = [&](std::vector<double>* prep, std::vector<double>* kern) {
            double t = now_ms();
            auto work = be.prepare_compact(w, params);
            if (prep) prep->push_back(now_ms() - t);
            t = now_ms();
            be.run_kernels(*work);
            if (kern) kern->push_back(now_ms() - t);
            return now_ms() - t;
        };
        const double first = prove(nullptr, nullptr);
        std::snprintf(note, sizeof note, "matrices %.2f GiB, points %.1f GiB placed; device memory in use %.1f GiB",
                      double(be.resident_matrix_bytes()) / gib, double(be.resident_bytes()) / gib, device_used_gib());
        record(tag + "first run_kernels (uploads, plan)", first, note);
        std::vector<double> prep, kern;
        for (int r = 0; r < reps; ++r) prove(&prep, &kern);
        std::snprintf(note, sizeof note, "prepare_compact's checks, before the lock");
        record(tag + "prepare_compact (CPU)", median(prep), note);
        uint64_t uploaded = 0, partitions = 0, segments = 0, sparse_segments = 0;
        for (const auto& [k, v] : be.counters()) {
            if (k == "compact_uploaded_bytes") uploaded = v;
            if (k == "compact_partitions") partitions = v;
            if (k == "streamed_segments") segments = v;
            if (k == "sparse_segments") sparse_segments = v;
        }
        const double per = partitions ? 1.0 / double(partitions) : 0.0;
        std::snprintf(note, sizeof note,
                      "median of %d; %.1f MB copied per partition; %.1f segments streamed per partition, %.1f of them "
                      "gathered sparse; compact witness buffers %.2f GiB; device memory in use %.1f GiB",
                      reps, double(uploaded) * per / 1e6, double(segments) * per, double(sparse_segments) * per,
                      double(be.compact_witness_bytes()) / gib, device_used_gib());
        record(tag + "run_kernels (GPU work under the lock)", median(kern), note);
    }
    return 0;
}

int main(int argc, char** argv) {
    // SPDLOG_LEVEL=debug: the backend's debug lines too (--compact-partition: each run's step times).
    spdlog::cfg::load_env_levels();
    const int max_log_msm = arg_int(argc, argv, "--max-log-msm", 26);
    const int max_log_ntt = arg_int(argc, argv, "--max-log-ntt", 27);
    const int reps = arg_int(argc, argv, "--reps", 5);
    std::string why;
    if (cuda::device_count(&why) == 0) {
        std::fprintf(stderr, "no GPU present (%s)\n", why.c_str());
        return 3;
    }
    // The modes that fill |table|: run, then the table printed whatever the outcome (an error is reported first).
    auto table_mode = [&](int (*mode)(int, char**)) {
        int rc = 1;
        try {
            rc = mode(argc, argv);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            rc = 1;
        }
        std::printf("\n| what | ms | note |\n|---|---:|---|\n");
        for (const auto& r : table) std::printf("| %s | %.2f | %s |\n", r.what.c_str(), r.ms, r.note.c_str());
        return rc;
    };
    if (has_flag(argc, argv, "--r1cs")) return table_mode(r1cs_bench);
    if (has_flag(argc, argv, "--compact-partition")) return table_mode(compact_bench);
    if (has_flag(argc, argv, "--partition")) return table_mode(partition_bench);
    // --one-msm: one G1 MSM shape only (G2 with --g2), 2^--max-log-msm random scalars (PoRep-like with
    // --porep), --reps times with msm_options from --buckets, --ones, --window-bits and --uniform-windows: a
    // short run to put under a profiler (nsys, ncu), or one point of a sweep.
    // --one-ntt: one forward NTT and one H pipeline at 2^--max-log-ntt, --reps times (for profilers); with
    // --all-kinds also the inverse, coset forward and coset inverse transforms; --pairwise-reversal: the bit
    // reversal element by element (ntt_context::set_tiled_reversal(false)); --register-stages N: radix 2^N inside
    // the passes (ntt_context::set_register_stages).
    if (has_flag(argc, argv, "--one-ntt")) {
        try {
            const unsigned L = unsigned(max_log_ntt);
            cuda::ntt_context ntt;
            ntt.prepare(L);
            for (int s = 0; s < 3; ++s) ntt.fill_random(s, L, 100 + s);
            if (has_flag(argc, argv, "--pairwise-reversal")) ntt.set_tiled_reversal(false);
            ntt.set_register_stages(unsigned(arg_int(argc, argv, "--register-stages", 3)));
            auto time_kind = [&](cuda::ntt_kind kind) {
                return median_ms(reps, [&] {
                    ntt.transform_resident(0, L, kind);
                    ntt.synchronize();
                });
            };
            const double f = time_kind(cuda::ntt_kind::forward);
            double h = median_ms(reps, [&] {
                ntt.compute_h_resident(L);
                ntt.synchronize();
            });
            std::printf("NTT 2^%u forward: %.2f ms; H pipeline: %.2f ms\n", L, f, h);
            if (has_flag(argc, argv, "--all-kinds")) {
                const double i = time_kind(cuda::ntt_kind::inverse);
                const double cf = time_kind(cuda::ntt_kind::coset_forward);
                const double ci = time_kind(cuda::ntt_kind::coset_inverse);
                std::printf("NTT 2^%u inverse: %.2f ms; coset forward: %.2f ms; coset inverse: %.2f ms\n", L, i, cf,
                            ci);
            }
            return 0;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "error: %s\n", e.what());
            return 1;
        }
    }
    if (has_flag(argc, argv, "--multiples")) return multiples_bench(max_log_msm, reps);
    if (has_flag(argc, argv, "--one-msm")) {
        return has_flag(argc, argv, "--g2") ? one_msm<ff::fp2_t>(argc, argv, max_log_msm, reps)
                                            : one_msm<ff::fp_t>(argc, argv, max_log_msm, reps);
    }
    try {
        std::printf("device: %s\n", cuda::device_description(0).c_str());
        const size_t nmax = size_t(1) << max_log_msm;
        // --ntt-only: the NTT and H figures alone (a short run after an NTT change).
        if (!has_flag(argc, argv, "--ntt-only")) {
            cuda::g1_msm_context g1;
            auto seeds = seeds_for<ff::fp_t>(nmax, 1);
            double t0 = now_ms();
            g1.generate_points(nmax, seeds);
            record("G1 points generated on GPU 2^" + std::to_string(max_log_msm), now_ms() - t0,
                   "pairwise affine sums of 2112 CPU points");

            // Correctness at 2^20 against the CPU, on 2^20 points generated the same way and on 2^20
            // subgroup points made on the CPU: the CPU in its automatic mode and in XYZZ mode, the GPU
            // at its own window and at c = 12.
            {
                cuda::g1_msm_context small;
                small.generate_points(size_t(1) << 20, seeds);
                auto pts = small.download_points();
                auto sc = make_scalars(pts.size(), false, 99);
                std::vector<msm::scalar_repr_t> canon(sc.size());
                for (size_t i = 0; i < sc.size(); ++i) canon[i] = sc[i].to_canonical();
                auto check = [&](const char* what, std::span<const ec::g1_affine_t> ps, cuda::g1_msm_context& ctx) {
                    double c0 = now_ms();
                    auto want = msm::multi_exp<ff::fp_t>(ps, sc);
                    double cpu = now_ms() - c0;
                    msm::pippenger_options xo;
                    xo.mode = msm::bucket_mode::xyzz;
                    bool cpu_modes = msm::pippenger<ff::fp_t>(ps, canon, xo) == want;
                    auto got = ctx.run(sc);
                    cuda::msm_options o12;
                    o12.window_bits = 12;
                    bool gpu_windows = ctx.run(sc, nullptr, o12) == got;
                    bool ok = got == want;
                    char note[200];
                    std::snprintf(note, sizeof note, "GPU %s CPU; CPU auto %s CPU xyzz; GPU c=auto %s GPU c=12",
                                  ok ? "==" : "!=", cpu_modes ? "==" : "!=", gpu_windows ? "==" : "!=");
                    record(std::string("G1 MSM 2^20 random, CPU (check, ") + what + ")", cpu, note);
                    return ok;
                };
                bool ok1 = check("generated points", pts, small);
                // Subgroup points: start + i step (random multiples of the generator), on the CPU.
                std::mt19937_64 rng(3);
                ec::g1_jacobian_t acc = ec::g1_jacobian_t::from_affine(ec::g1_generator()).mul(fr_t::random(rng));
                ec::g1_jacobian_t step = ec::g1_jacobian_t::from_affine(ec::g1_generator()).mul(fr_t::random(rng));
                std::vector<ec::g1_jacobian_t> jac(pts.size());
                for (auto& j : jac) {
                    j = acc;
                    acc = acc + step;
                }
                std::vector<ec::g1_affine_t> sub(pts.size());
                ec::batch_to_affine(jac.data(), sub.data(), sub.size());
                small.upload_points(sub);
                bool ok3 = check("subgroup points", sub, small);
                if (!(ok1 && ok3)) std::printf("CHECK FAILED: timings below are of a wrong MSM\n");
            }

            auto rnd = make_scalars(nmax, false, 7);
            auto porep = make_scalars(nmax, true, 8);
            for (int L = 20; L <= max_log_msm; L += 2) {
                size_t n = size_t(1) << L;
                int r = L >= 26 ? std::max(1, reps / 2) : reps;
                for (int shape = 0; shape < 2; ++shape) {
                    const auto& sc = shape == 0 ? rnd : porep;
                    std::span<const fr_t> s(sc.data(), n);
                    double t_up = now_ms();
                    g1.upload_scalars(s);
                    t_up = now_ms() - t_up;
                    cuda::msm_report rep;
                    double ms = median_ms(r, [&] { g1.run_uploaded(n, &rep); });
                    cuda::msm_options timed;
                    timed.timing = true;
                    g1.run_uploaded(n, &rep, timed);
                    char note[320];
                    std::snprintf(note, sizeof note,
                                  "c=%u, %zu zero / %zu one / %zu other; phases ms: classify %.1f, ones %.1f, "
                                  "sort %.1f, accumulate %.1f, reduce %.1f, finish %.1f; scalar upload %.1f ms",
                                  rep.window_bits, rep.zeros, rep.ones, rep.others, rep.ms_classify, rep.ms_ones,
                                  rep.ms_sort, rep.ms_accumulate, rep.ms_reduce, rep.ms_finish, t_up);
                    record(std::string("G1 MSM 2^") + std::to_string(L) + (shape == 0 ? " random" : " PoRep-like"), ms,
                           note);
                }
            }
            // Window sweep at 2^24, and at --sweep-log L as well when given (at most --max-log-msm).
            std::vector<int> sweep_logs{24};
            const int sweep_log = arg_int(argc, argv, "--sweep-log", 24);
            if (sweep_log != 24 && sweep_log >= 20) sweep_logs.push_back(sweep_log);
            for (int log_n : sweep_logs) {
                if (log_n > max_log_msm) continue;
                size_t n = size_t(1) << log_n;
                g1.upload_scalars(std::span<const fr_t>(rnd.data(), n));
                for (unsigned c : {16u, 18u, 20u, 21u, 22u}) {
                    cuda::msm_options opt;
                    opt.window_bits = c;
                    double ms = median_ms(3, [&] { g1.run_uploaded(n, nullptr, opt); });
                    record("G1 MSM 2^" + std::to_string(log_n) + " random, c=" + std::to_string(c), ms, "window sweep");
                }
                // Both bucket sums forced x window width; each result checked against the default's.
                const auto want = g1.run_uploaded(n);
                for (cuda::msm_sum how : {cuda::msm_sum::xyzz, cuda::msm_sum::batch_affine}) {
                    for (unsigned c : {0u, 18u, 20u, 22u}) {
                        cuda::msm_options opt;
                        opt.buckets = how;
                        opt.window_bits = c;
                        double ms = median_ms(3, [&] { g1.run_uploaded(n, nullptr, opt); });
                        cuda::msm_report rep;
                        opt.timing = true;
                        bool same = g1.run_uploaded(n, &rep, opt) == want;
                        char what[120], note[160];
                        std::snprintf(what, sizeof what, "G1 MSM 2^%d random, %s, c=%u", log_n, sum_name(how),
                                      rep.window_bits);
                        std::snprintf(note, sizeof note, "%s; sort %.1f, accumulate %.1f, reduce %.1f ms",
                                      same ? "== default" : "MISMATCH with the default", rep.ms_sort,
                                      rep.ms_accumulate, rep.ms_reduce);
                        record(what, ms, note);
                    }
                }
            }
        }
        if (!has_flag(argc, argv, "--ntt-only")) {
            const int g2_max = std::min(max_log_msm, 24);
            cuda::g2_msm_context g2;
            auto seeds = seeds_for<ff::fp2_t>(size_t(1) << g2_max, 2);
            double t0 = now_ms();
            g2.generate_points(size_t(1) << g2_max, seeds);
            record("G2 points generated on GPU 2^" + std::to_string(g2_max), now_ms() - t0);
            auto sc = make_scalars(size_t(1) << g2_max, false, 9);
            for (int L : {18, 20, 24}) {
                if (L > g2_max) continue;
                size_t n = size_t(1) << L;
                g2.upload_scalars(std::span<const fr_t>(sc.data(), n));
                cuda::msm_report rep;
                double ms = median_ms(L >= 24 ? 3 : reps, [&] { g2.run_uploaded(n, &rep); });
                cuda::msm_options timed;
                timed.timing = true;
                g2.run_uploaded(n, &rep, timed);
                char note[200];
                std::snprintf(note, sizeof note, "c=%u; phases ms: sort %.1f, accumulate %.1f, reduce %.1f",
                              rep.window_bits, rep.ms_sort, rep.ms_accumulate, rep.ms_reduce);
                record("G2 MSM 2^" + std::to_string(L) + " random", ms, note);
            }
            {
                cuda::g2_msm_context small;
                size_t n = size_t(1) << 18;
                small.generate_points(n, seeds);
                auto pts = small.download_points();
                std::span<const fr_t> s(sc.data(), n);
                double c0 = now_ms();
                auto want = msm::multi_exp<ff::fp2_t>(std::span<const ec::g2_affine_t>(pts), s);
                double cpu = now_ms() - c0;
                bool ok = small.run(s) == want;
                record("G2 MSM 2^18 random, CPU (check)", cpu, ok ? "GPU == CPU" : "MISMATCH");
                if (!ok) return 1;
            }
        }
        {
            cuda::ntt_context ntt;
            double t0 = now_ms();
            ntt.prepare(unsigned(max_log_ntt));
            record("NTT twiddle tables 2^" + std::to_string(max_log_ntt), now_ms() - t0);
            for (int L = 20; L <= max_log_ntt; ++L) {
                ntt.fill_random(0, unsigned(L), 11);
                double f = median_ms(reps, [&] {
                    ntt.transform_resident(0, unsigned(L), cuda::ntt_kind::forward);
                    ntt.synchronize();
                });
                double c = median_ms(reps, [&] {
                    ntt.transform_resident(0, unsigned(L), cuda::ntt_kind::coset_inverse);
                    ntt.synchronize();
                });
                record("NTT 2^" + std::to_string(L) + " forward", f, "coset inverse " + std::to_string(c) + " ms");
            }
            const unsigned H = unsigned(max_log_ntt);
            for (int s = 0; s < 3; ++s) ntt.fill_random(s, H, 100 + s);
            double h = median_ms(3, [&] {
                ntt.compute_h_resident(H);
                ntt.synchronize();
            });
            record("H pipeline 2^" + std::to_string(H), h, "6 NTTs + coset scalings + a*b, resident");
            // One row each for the forward NTT at 2^24 and 2^max and the H pipeline, under a tuning setting.
            auto sweep_rows = [&](const std::string& setting, const char* sweep) {
                for (int L : {24, max_log_ntt}) {
                    ntt.fill_random(0, unsigned(L), 11);
                    double f = median_ms(reps, [&] {
                        ntt.transform_resident(0, unsigned(L), cuda::ntt_kind::forward);
                        ntt.synchronize();
                    });
                    record("NTT 2^" + std::to_string(L) + " forward, " + setting, f, sweep);
                }
                for (int s = 0; s < 3; ++s) ntt.fill_random(s, H, 100 + s);
                double hs = median_ms(1, [&] {
                    ntt.compute_h_resident(H);
                    ntt.synchronize();
                });
                record("H pipeline 2^" + std::to_string(H) + ", " + setting, hs, sweep);
            };
            // Columns per strided pass (ntt.hpp set_pass_columns): contiguous runs against stages per pass.
            for (unsigned cols : {0u, 2u, 3u, 4u}) {
                ntt.set_pass_columns(cols);
                sweep_rows("2^" + std::to_string(cols) + " columns per pass", "pass width sweep");
            }
            ntt.set_pass_columns(1);
            // Stages per register group (ntt.hpp set_register_stages): radix 2, 4, 8 inside each pass.
            for (unsigned stages : {1u, 2u, 3u}) {
                ntt.set_register_stages(stages);
                sweep_rows(std::to_string(stages) + " stages per register group", "radix sweep");
            }
            ntt.set_register_stages(3);
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
    std::printf("\n| what | ms | note |\n|---|---:|---|\n");
    for (const auto& r : table) std::printf("| %s | %.2f | %s |\n", r.what.c_str(), r.ms, r.note.c_str());
    return 0;
}
