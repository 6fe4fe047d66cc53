// Synthetic parameters (a test facility: random points, proofs not valid): the sizes a setup of the same circuit
// gives, hence those prepare_partition checks; points on the curve, none the identity, in arithmetic progression
// within a chunk, the same for the same seed; a proof made with them runs and does not verify.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <stop_token>
#include <string>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/ec/jacobian.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/setup.hpp"
#include "common/groth16/verifier.hpp"
#include "common/r1cs/matrix_recorder.hpp"
#include "common/util/errors.hpp"
#include "daemon/synthetic_params.hpp"

using namespace cuzk;

namespace {

groth16::rng_fn seeded(std::uint64_t seed) {
    return [rng = std::mt19937_64(seed)]() mutable { return rng(); };
}

template <class F>
void expect_points(const std::vector<ec::affine_t<F>>& points, const char* what) {
    for (std::size_t i = 0; i < points.size(); ++i) {
        ASSERT_FALSE(points[i].is_identity()) << what << "[" << i << "]";
        ASSERT_TRUE(ec::is_on_curve(points[i])) << what << "[" << i << "]";
    }
}

}  // namespace

TEST(DaemonSyntheticParams, SizesAreThoseOfASetupOfTheSameCircuit) {
    for (const std::string spec : {"mul:64", "sha256:1"}) {
        const auto circuit = circuits::make_circuit(spec);
        const auto setup = groth16::generate_random_parameters(*circuit, seeded(1)).params;
        const auto counts = daemon::parameter_counts_of(r1cs::record_matrices(*circuit));
        const auto p = daemon::synthetic_parameters(counts, 7);
        EXPECT_EQ(p.vk.ic.size(), setup.vk.ic.size()) << spec;
        EXPECT_EQ(p.h.size(), setup.h.size()) << spec;
        EXPECT_EQ(p.l.size(), setup.l.size()) << spec;
        EXPECT_EQ(p.a.size(), setup.a.size()) << spec;
        EXPECT_EQ(p.b_g1.size(), setup.b_g1.size()) << spec;
        EXPECT_EQ(p.b_g2.size(), setup.b_g2.size()) << spec;
        EXPECT_EQ(counts.g1_points(), p.vk.ic.size() + p.h.size() + p.l.size() + p.a.size() + p.b_g1.size()) << spec;
    }
}

// Asked to stop (gpud stopping while it builds a 32 GiB set's 51 GB of points), the build throws abandoned_error.
TEST(DaemonSyntheticParams, ABuildAskedToStopIsAbandoned) {
    daemon::parameter_counts n;
    n.ic = 2;
    n.h = 1000;
    n.l = n.a = n.b = 10;
    std::stop_source stop;
    EXPECT_EQ(daemon::synthetic_parameters(n, 3, stop.get_token()).h.size(), 1000u);
    stop.request_stop();
    EXPECT_THROW(daemon::synthetic_parameters(n, 3, stop.get_token()), abandoned_error);
}

TEST(DaemonSyntheticParams, PointsAreOnTheCurveInProgressionAndReproducible) {
    daemon::parameter_counts n;
    n.ic = 3;
    n.h = 40000;  // two chunks of 32,768, the second short; past the doubling blocks into the fixed ones
    n.l = 5;
    n.a = 1;
    n.b = 1500;
    const auto p = daemon::synthetic_parameters(n, 42);
    expect_points(p.vk.ic, "ic");
    expect_points(p.h, "h");
    expect_points(p.l, "l");
    expect_points(p.a, "a");
    expect_points(p.b_g1, "b_g1");
    expect_points(p.b_g2, "b_g2");
    for (const auto& q : {p.vk.alpha_g1, p.vk.beta_g1, p.vk.delta_g1}) EXPECT_TRUE(ec::is_on_curve(q) && !q.infinity);
    for (const auto& q : {p.vk.beta_g2, p.vk.gamma_g2, p.vk.delta_g2}) EXPECT_TRUE(ec::is_on_curve(q) && !q.infinity);
    // Within a chunk each point is the one before plus the same step: the batched affine additions are exact.
    auto step_g1 = ec::g1_jacobian_t::from_affine(p.h[1]) - ec::g1_jacobian_t::from_affine(p.h[0]);
    for (std::size_t i = 1; i < 32768; ++i)
        ASSERT_EQ(ec::g1_jacobian_t::from_affine(p.h[i]) - ec::g1_jacobian_t::from_affine(p.h[i - 1]), step_g1) << i;
    auto step_g2 = ec::g2_jacobian_t::from_affine(p.b_g2[1]) - ec::g2_jacobian_t::from_affine(p.b_g2[0]);
    for (std::size_t i = 1; i < p.b_g2.size(); ++i)
        ASSERT_EQ(ec::g2_jacobian_t::from_affine(p.b_g2[i]) - ec::g2_jacobian_t::from_affine(p.b_g2[i - 1]), step_g2)
            << i;
    // Chunks and queries start apart: no point repeats.
    std::set<std::vector<std::uint64_t>> seen;
    for (const auto* v : {&p.h, &p.l, &p.vk.ic, &p.a, &p.b_g1})
        for (const auto& q : *v) ASSERT_TRUE(seen.insert(std::vector<std::uint64_t>(q.x.l, q.x.l + 6)).second);
    EXPECT_EQ(daemon::synthetic_parameters(n, 42), p);
    EXPECT_NE(daemon::synthetic_parameters(n, 43).h, p.h);
}

TEST(DaemonSyntheticParams, AProofWithThemRunsAndDoesNotVerify) {
    const auto circuit = circuits::make_circuit("mul:256@5");
    const auto p = daemon::synthetic_parameters(daemon::parameter_counts_of(r1cs::record_matrices(*circuit)), 1);
    const auto r = groth16::create_proof(*circuit, p, seeded(3));  // throws where a size does not fit
    EXPECT_TRUE(ec::is_on_curve(r.pi.a) && ec::is_on_curve(r.pi.b) && ec::is_on_curve(r.pi.c));
    EXPECT_FALSE(groth16::verify_proof(groth16::prepare_verifying_key(p.vk), r.pi, r.public_inputs));
}
