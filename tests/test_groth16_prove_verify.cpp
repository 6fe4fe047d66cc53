// Groth16 end to end on the CPU: setup from random toxic waste, prove, verify, batch verify, and the
// rejection of tampered proofs, inputs and keys; the prover's stages with A's aux scalars left in the aux.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <random>

#include "common/circuits/registry.hpp"
#include "common/msm/fixed_base.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/prover_stages.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/setup.hpp"
#include "common/groth16/verifier.hpp"
#include "support/every_aux_in_a.hpp"

using namespace cuzk;
using namespace cuzk::groth16;

namespace {

rng_fn seeded(uint64_t seed) {
    auto g = std::make_shared<std::mt19937_64>(seed);
    return [g] { return (*g)(); };
}

ec::g1_affine_t add_generator(const ec::g1_affine_t& p) {
    return (ec::g1_jacobian_t::from_affine(p) + ec::g1_jacobian_t::from_affine(ec::g1_generator())).to_affine();
}
ec::g2_affine_t add_generator(const ec::g2_affine_t& p) {
    return (ec::g2_jacobian_t::from_affine(p) + ec::g2_jacobian_t::from_affine(ec::g2_generator())).to_affine();
}

// One setup per circuit shape for the whole suite: setup dominates the run time.
struct fixture_keys {
    setup_result setup;
    prepared_verifying_key pvk;
};

const fixture_keys& mul_keys() {
    static const fixture_keys k = [] {
        auto c = circuits::make_circuit("mul:64");
        fixture_keys f{generate_random_parameters(*c, seeded(1)), {}};
        f.pvk = prepare_verifying_key(f.setup.params.vk);
        return f;
    }();
    return k;
}

const fixture_keys& sha_keys() {
    static const fixture_keys k = [] {
        auto c = circuits::make_circuit("sha256:1");
        fixture_keys f{generate_random_parameters(*c, seeded(2)), {}};
        f.pvk = prepare_verifying_key(f.setup.params.vk);
        return f;
    }();
    return k;
}

}  // namespace

TEST(Groth16FixedBase, MatchesDoubleAndAdd) {
    std::mt19937_64 rng(11);
    const auto g = ec::g1_generator();
    std::vector<ff::fr_t> ks = {ff::fr_t::zero(), ff::fr_t::one(), -ff::fr_t::one(), ff::fr_t::from_u64(2)};
    // Scalars whose windows are all top digits (carries through every window) and a long batch.
    ks.push_back(ff::fr_t::from_u64(0xffffffffffffffffULL));
    ks.push_back(-ff::fr_t::from_u64(2));
    for (int i = 0; i < 1500; ++i) ks.push_back(ff::fr_t::random(rng));
    std::vector<ec::g1_affine_t> expect(ks.size());
    for (size_t i = 0; i < ks.size(); ++i) expect[i] = ec::g1_jacobian_t::from_affine(g).mul(ks[i]).to_affine();
    for (unsigned c : {2u, 5u, 8u, 13u}) {
        msm::fixed_base_table<ff::fp_t> t(g, c);
        std::vector<ec::g1_affine_t> out(ks.size());
        t.mul_batch(ks.data(), out.data(), ks.size());
        for (size_t i = 0; i < ks.size(); ++i) {
            ASSERT_EQ(out[i], expect[i]) << "c=" << c << " i=" << i;
            if (i < 50) {
                ASSERT_EQ(t.mul(ks[i]).to_affine(), expect[i]) << "c=" << c << " i=" << i;
            }
        }
    }
    msm::fixed_base_table<ff::fp2_t> t2(ec::g2_generator(), 7);
    std::vector<ec::g2_affine_t> out2(8);
    t2.mul_batch(ks.data(), out2.data(), out2.size());
    for (size_t i = 0; i < out2.size(); ++i) {
        auto expect = ec::g2_jacobian_t::from_affine(ec::g2_generator()).mul(ks[i]).to_affine();
        EXPECT_EQ(out2[i], expect) << i;
        EXPECT_EQ(t2.mul(ks[i]).to_affine(), expect) << i;
    }
}

TEST(Groth16ProvingAssignment, RecordsRowsDensitiesAndInputRows) {
    // x * y = z with x, y aux, z input; then (x + ONE) * ONE = w.
    proving_assignment pa;
    auto x = pa.alloc(ff::fr_t::from_u64(3));
    auto y = pa.alloc(ff::fr_t::from_u64(5));
    auto z = pa.alloc_input(ff::fr_t::from_u64(15));
    auto w = pa.alloc(ff::fr_t::from_u64(4));
    pa.enforce(x, y, z);
    cs::linear_combination xa(x);
    xa.add_term(cs::variable::one());
    pa.enforce(xa, cs::variable::one(), w);
    pa.finish();
    ASSERT_EQ(pa.num_constraints(), 2u + 2u);  // two rows, then one per input (ONE and z)
    EXPECT_EQ(pa.num_circuit_constraints(), 2u);
    EXPECT_EQ(pa.a()[0], ff::fr_t::from_u64(3));
    EXPECT_EQ(pa.b()[0], ff::fr_t::from_u64(5));
    EXPECT_EQ(pa.c()[0], ff::fr_t::from_u64(15));
    EXPECT_EQ(pa.a()[1], ff::fr_t::from_u64(4));
    EXPECT_EQ(pa.a()[2], ff::fr_t::one());           // ONE * 0 = 0
    EXPECT_EQ(pa.a()[3], ff::fr_t::from_u64(15));    // z * 0 = 0
    EXPECT_TRUE(pa.b()[3].is_zero() && pa.c()[3].is_zero());
    EXPECT_TRUE(pa.a_aux_density().test(0));
    EXPECT_FALSE(pa.a_aux_density().test(1));
    EXPECT_FALSE(pa.a_aux_density().test(2));
    EXPECT_TRUE(pa.b_aux_density().test(1));
    EXPECT_FALSE(pa.b_aux_density().test(0));
    EXPECT_TRUE(pa.b_input_density().test(0));   // ONE in B of row 1
    EXPECT_FALSE(pa.b_input_density().test(1));  // z only in C
    EXPECT_EQ(pa.b_input_density().count() + pa.b_aux_density().count(), 2u);
    EXPECT_THROW(pa.alloc(ff::fr_t::one()), std::logic_error);
}

TEST(Groth16Setup, ParametersHaveBellpersonShape) {
    const auto& s = mul_keys().setup;
    // mul:64: 64 constraints, 2 inputs (ONE and the product), 65 aux.
    EXPECT_EQ(s.num_constraints, 64u);
    EXPECT_EQ(s.num_inputs, 2u);
    EXPECT_EQ(s.num_aux, 65u);
    EXPECT_EQ(s.log_domain, 7u);  // 66 rows -> 128
    EXPECT_TRUE(s.random_toxic_waste);
    const auto& p = s.params;
    EXPECT_EQ(p.h.size(), 127u);
    EXPECT_EQ(p.vk.ic.size(), 2u);
    EXPECT_EQ(p.l.size(), 65u);
    // Every input is in A (the input rows); aux as the circuit uses them.
    EXPECT_GE(p.a.size(), 2u);
    EXPECT_LE(p.a.size(), 67u);
    EXPECT_EQ(p.b_g1.size(), p.b_g2.size());
    for (const auto& q : p.h) ASSERT_FALSE(q.is_identity());
    for (const auto& q : p.a) ASSERT_FALSE(q.is_identity());
    for (const auto& q : p.b_g2) ASSERT_FALSE(q.is_identity());
    EXPECT_FALSE(s.timings.to_string().empty());
}

TEST(Groth16Setup, SameSeedSameParameters) {
    auto c = circuits::make_circuit("mul:8");
    EXPECT_EQ(generate_random_parameters(*c, seeded(7)).params, generate_random_parameters(*c, seeded(7)).params);
    EXPECT_NE(generate_random_parameters(*c, seeded(7)).params.vk, generate_random_parameters(*c, seeded(8)).params.vk);
}

TEST(Groth16Setup, UnconstrainedAuxIsRefused) {
    auto synth = [](cs::constraint_system& cs) {
        auto x = cs.alloc(ff::fr_t::one());
        cs.alloc(ff::fr_t::one());  // never constrained
        cs.enforce(x, x, x);
    };
    EXPECT_THROW(generate_random_parameters(synth, seeded(1)), std::invalid_argument);
}

TEST(Groth16ProveVerify, MulProofVerifies) {
    const auto& k = mul_keys();
    auto c = circuits::make_circuit("mul:64");
    proof_result r = create_proof(*c, k.setup.params, seeded(100));
    EXPECT_EQ(r.public_inputs, c->public_inputs());
    EXPECT_TRUE(verify_proof(k.pvk, r.pi, r.public_inputs));
    EXPECT_GT(r.timings.total_s, 0.0);
    // Fresh blinding each time: another proof of the same statement differs and verifies.
    proof_result r2 = create_proof(*c, k.setup.params, seeded(101));
    EXPECT_NE(r.pi, r2.pi);
    EXPECT_TRUE(verify_proof(k.pvk, r2.pi, r2.public_inputs));
}

TEST(Groth16ProveVerify, TamperedProofIsRejected) {
    const auto& k = mul_keys();
    auto c = circuits::make_circuit("mul:64");
    proof_result r = create_proof(*c, k.setup.params, seeded(102));
    ASSERT_TRUE(verify_proof(k.pvk, r.pi, r.public_inputs));
    proof bad = r.pi;
    bad.a = add_generator(bad.a);
    EXPECT_FALSE(verify_proof(k.pvk, bad, r.public_inputs));
    bad = r.pi;
    bad.b = add_generator(bad.b);
    EXPECT_FALSE(verify_proof(k.pvk, bad, r.public_inputs));
    bad = r.pi;
    bad.c = add_generator(bad.c);
    EXPECT_FALSE(verify_proof(k.pvk, bad, r.public_inputs));
    bad = r.pi;
    std::swap(bad.a, bad.c);
    EXPECT_FALSE(verify_proof(k.pvk, bad, r.public_inputs));
}

TEST(Groth16ProveVerify, ChangedPublicInputIsRejected) {
    const auto& k = mul_keys();
    auto c = circuits::make_circuit("mul:64");
    proof_result r = create_proof(*c, k.setup.params, seeded(103));
    std::vector<ff::fr_t> x = r.public_inputs;
    x[0] += ff::fr_t::one();
    EXPECT_FALSE(verify_proof(k.pvk, r.pi, x));
    // A statement with a different witness (another seed) has another public input.
    auto other = circuits::make_circuit("mul:64@other");
    EXPECT_NE(other->public_inputs(), r.public_inputs);
    EXPECT_FALSE(verify_proof(k.pvk, r.pi, other->public_inputs()));
}

TEST(Groth16ProveVerify, WrongInputCountThrowsWithBothNumbers) {
    const auto& k = mul_keys();
    auto c = circuits::make_circuit("mul:64");
    proof_result r = create_proof(*c, k.setup.params, seeded(104));
    std::vector<ff::fr_t> x = r.public_inputs;
    x.push_back(ff::fr_t::one());
    try {
        verify_proof(k.pvk, r.pi, x);
        FAIL() << "accepted 2 inputs for a 1-input key";
    } catch (const std::invalid_argument& e) {
        std::string m = e.what();
        EXPECT_NE(m.find("2 public inputs"), std::string::npos) << m;
        EXPECT_NE(m.find("expects 1"), std::string::npos) << m;
    }
    EXPECT_THROW(verify_proof(k.pvk, r.pi, {}), std::invalid_argument);
}

TEST(Groth16ProveVerify, ProofUnderAnotherSetupIsRejected) {
    const auto& k = mul_keys();
    auto c = circuits::make_circuit("mul:64");
    setup_result other = generate_random_parameters(*c, seeded(999));
    proof_result r = create_proof(*c, other.params, seeded(105));
    EXPECT_TRUE(verify_proof(prepare_verifying_key(other.params.vk), r.pi, r.public_inputs));
    EXPECT_FALSE(verify_proof(k.pvk, r.pi, r.public_inputs));
}

TEST(Groth16ProveVerify, ParametersOfAnotherShapeAreRefused) {
    auto c = circuits::make_circuit("mul:65");
    EXPECT_THROW(create_proof(*c, mul_keys().setup.params, seeded(1)), std::invalid_argument);
}

TEST(Groth16ProveVerify, Sha256ProofVerifiesAndSurvivesBytes) {
    const auto& k = sha_keys();
    auto c = circuits::make_circuit("sha256:1");
    proof_result r = create_proof(*c, k.setup.params, seeded(106));
    EXPECT_EQ(r.public_inputs, c->public_inputs());
    EXPECT_TRUE(verify_proof(k.pvk, r.pi, r.public_inputs));
    auto bytes = proof_to_bytes(r.pi);
    proof back = proof_from_bytes(bytes);
    EXPECT_EQ(back, r.pi);
    EXPECT_TRUE(verify_proof(k.pvk, back, r.public_inputs));
    std::vector<ff::fr_t> x = r.public_inputs;
    x.back() += ff::fr_t::one();
    EXPECT_FALSE(verify_proof(k.pvk, r.pi, x));
    // The prover reports every stage.
    EXPECT_GT(r.timings.synthesis_s, 0.0);
    EXPECT_GT(r.timings.h_msm_s, 0.0);
    EXPECT_GT(r.timings.b_g2_msm_s, 0.0);
    EXPECT_GT(r.timings.l_stats.zeros + r.timings.l_stats.ones, 0u);  // SHA256 bits
}

TEST(Groth16ProveVerify, ProofFromParametersReadBackFromFiles) {
    const auto& k = mul_keys();
    auto dir = std::filesystem::temp_directory_path() / ("cuzk_groth16_pv_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    write_parameters(dir / "mul.params", k.setup.params);
    write_vk(dir / "mul.vk", k.setup.params.vk);
    parameters p = read_parameters(dir / "mul.params", ec::subgroup_check::checked);
    verifying_key vk = read_vk(dir / "mul.vk");
    EXPECT_EQ(p, k.setup.params);
    EXPECT_EQ(std::filesystem::file_size(dir / "mul.vk"), 868u + 96u * vk.ic.size());
    auto c = circuits::make_circuit("mul:64");
    proof_result r = create_proof(*c, p, seeded(107));
    EXPECT_TRUE(verify_proof(prepare_verifying_key(vk), r.pi, r.public_inputs));
    std::filesystem::remove_all(dir);
}

TEST(Groth16BatchVerify, AcceptsValidBatchAndRejectsOneBadProof) {
    const auto& k = mul_keys();
    std::vector<proof> proofs;
    std::vector<std::vector<ff::fr_t>> inputs;
    for (int i = 0; i < 5; ++i) {
        auto c = circuits::make_circuit("mul:64@batch" + std::to_string(i));
        proof_result r = create_proof(*c, k.setup.params, seeded(200 + uint64_t(i)));
        proofs.push_back(r.pi);
        inputs.push_back(r.public_inputs);
    }
    EXPECT_TRUE(batch_verify(k.pvk, proofs, inputs, seeded(1)));
    EXPECT_TRUE(batch_verify(k.pvk, proofs, inputs));  // system randomness
    EXPECT_TRUE(batch_verify(k.pvk, {}, {}));

    auto bad = proofs;
    bad[3].c = add_generator(bad[3].c);
    EXPECT_FALSE(batch_verify(k.pvk, bad, inputs, seeded(2)));
    // Swapped inputs between two proofs: each proof is valid, but not for the other's statement.
    auto swapped = inputs;
    std::swap(swapped[0], swapped[1]);
    EXPECT_FALSE(batch_verify(k.pvk, proofs, swapped, seeded(3)));
    // A proof under another key spoils the batch.
    auto c = circuits::make_circuit("mul:64");
    setup_result other = generate_random_parameters(*c, seeded(555));
    auto foreign = proofs;
    foreign[0] = create_proof(*c, other.params, seeded(4)).pi;
    auto foreign_inputs = inputs;
    foreign_inputs[0] = c->public_inputs();
    EXPECT_FALSE(batch_verify(k.pvk, foreign, foreign_inputs, seeded(5)));

    EXPECT_THROW(batch_verify(k.pvk, proofs, std::span(inputs).first(4)), std::invalid_argument);
    auto wrong_count = inputs;
    wrong_count[2].push_back(ff::fr_t::one());
    EXPECT_THROW(batch_verify(k.pvk, proofs, wrong_count), std::invalid_argument);
}

namespace {

// The prover's stages from a prepare that leaves the rows to the caller (as gpud's CUDA backend does): the
// rows copied in here, padded, then the kernels and the blinding with |seed|'s draws.
proof prove_by_stages(const witness_view& w, const parameters& params, a_aux_storage storage, uint64_t seed,
                      prepared_partition& p) {
    prepare_partition_without_rows(w, params, p, nullptr, storage);
    const size_t m = size_t(1) << p.log_m;
    p.h.assign(w.a.begin(), w.a.end());
    p.b.assign(w.b.begin(), w.b.end());
    p.c.assign(w.c.begin(), w.c.end());
    p.h.resize(m), p.b.resize(m), p.c.resize(m);
    const kernel_results k = run_kernels(p, params);
    rng_fn rng = seeded(seed);
    return finish_proof(p, k, params, rng);
}

}  // namespace

// a_aux_storage::in_aux_when_dense: where A uses every aux variable, prepare leaves A's aux scalars in the
// witness's aux (a_scalars holds the inputs alone) and the stages still make the proof that gathered scalars
// make, which verifies; where an aux variable is outside A (a mul chain) they are gathered as always.
TEST(Groth16Stages, AAuxScalarsStayInTheAuxWhereAUsesEveryAuxVariable) {
    const cuzk::test::every_aux_in_a c(300, 40, 5);
    const setup_result setup = generate_random_parameters(c, seeded(3));
    proving_assignment pa;
    c.synthesize(pa);
    pa.finish();
    const witness_view w = view_of(pa);
    ASSERT_EQ(w.a_aux_density.count(), w.aux.size());

    prepared_partition gathered, in_aux;
    const proof want = prove_by_stages(w, setup.params, a_aux_storage::gathered, 9, gathered);
    const proof got = prove_by_stages(w, setup.params, a_aux_storage::in_aux_when_dense, 9, in_aux);
    EXPECT_FALSE(gathered.a_aux_in_aux);
    EXPECT_EQ(gathered.a_scalars.size(), w.inputs.size() + w.aux.size());
    EXPECT_TRUE(in_aux.a_aux_in_aux);
    EXPECT_EQ(in_aux.a_scalars.size(), w.inputs.size());
    EXPECT_EQ(proof_to_bytes(got), proof_to_bytes(want));
    EXPECT_TRUE(verify_proof(prepare_verifying_key(setup.params.vk), got, c.public_inputs()));

    const auto& k = mul_keys();
    auto mul = circuits::make_circuit("mul:64");
    proving_assignment mpa;
    mul->synthesize(mpa);
    mpa.finish();
    const witness_view mw = view_of(mpa);
    ASSERT_LT(mw.a_aux_density.count(), mw.aux.size());
    prepared_partition mp;
    const proof mul_proof = prove_by_stages(mw, k.setup.params, a_aux_storage::in_aux_when_dense, 10, mp);
    EXPECT_FALSE(mp.a_aux_in_aux);
    EXPECT_EQ(mp.a_scalars.size(), mw.inputs.size() + mw.a_aux_density.count());
    EXPECT_TRUE(verify_proof(k.pvk, mul_proof, mul->public_inputs()));
}
