// SnapDeals partitions from vanilla proofs to Groth16 proofs on the CPU: the witness taken from a decoded
// PartitionProof (update_witness.hpp) satisfies the circuit and exposes generate_public_inputs' values (1 KiB,
// and partition 1 of the two of 16 KiB, which has a partition path); misshapen proofs are refused naming the
// partition and challenge; partition_circuits_of checks the proofs natively first; the built-in circuit
// "update:<name>[@seed]"; and a 1 KiB partition proved with random parameters verifies with its public inputs,
// and not with another comm_d_new, comm_r_new or first input (k and h_select). Setup ~25 s and proof ~8 s on the
// 2-core development machine; the 16 KiB checks ~2 s each.
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/cs/counting_cs.hpp"
#include "common/groth16/prover.hpp"
#include "common/groth16/setup.hpp"
#include "common/groth16/verifier.hpp"
#include "common/update/public_inputs.hpp"
#include "common/update/sample_update.hpp"
#include "common/update/update_circuit.hpp"
#include "common/update/update_witness.hpp"
#include "common/util/errors.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::update;

constexpr uint64_t KiB_NODES = 1024 / 32;

update_commitments commitments_of(const sample_update& s) {
    return {s.comm_r_old, s.comm_d_new, s.comm_r_new, s.h};
}

struct checked {
    bool satisfied;
    std::string first_failure;
    std::vector<ff::fr_t> inputs;  // without ONE
};

checked synthesize_checked(const circuits::circuit& c) {
    cs::checking_cs cs;
    c.synthesize(cs);
    const auto in = cs.inputs();
    return {cs.is_satisfied(), cs.first_failure().value_or(""), std::vector<ff::fr_t>(in.begin() + 1, in.end())};
}

// |f| throws cuzk::input_error whose message holds every one of |parts|.
template <typename F>
void expect_input_error(F&& f, std::initializer_list<const char*> parts) {
    try {
        f();
        ADD_FAILURE() << "no input_error";
    } catch (const input_error& e) {
        for (const char* p : parts)
            EXPECT_NE(std::string(e.what()).find(p), std::string::npos) << p << " in: " << e.what();
    }
}

domain_t bytes_of(const ff::fr_t& x) {
    domain_t d{};
    x.to_bytes_le(d.data());
    return d;
}

// ---- the witness from vanilla proofs ---------------------------------------------------------------

TEST(UpdateWitness, FromVanillaProofsSatisfiesTheCircuit) {
    for (auto [nodes, k] : {std::pair{KiB_NODES, 0u}, std::pair{16 * KiB_NODES, 1u}}) {
        const sample_update s = make_sample_update(nodes, "update witness");
        const update_shape shape = update_shape_of(nodes);
        const update_partition_circuit c(shape, "update test size",
                                         partition_witness_of(shape, s.partitions.at(k), k, commitments_of(s)));
        const checked r = synthesize_checked(c);
        EXPECT_TRUE(r.satisfied) << nodes << " nodes, partition " << k << ": " << r.first_failure;
        EXPECT_EQ(r.inputs, c.public_inputs());
        EXPECT_EQ(c.public_inputs(), generate_public_inputs(shape, k, s.h, s.comm_r_old, s.comm_d_new, s.comm_r_new));
        EXPECT_EQ(c.witness()->root_r_old, s.root_r_old);
        EXPECT_EQ(c.witness()->root_r_new, s.root_r_new);
        EXPECT_EQ(c.witness()->comm_c, s.comm_c);
    }
}

TEST(UpdateWitness, AnotherPartitionsProofIsNotSatisfied) {
    // Partition 0's openings proved as partition 1: other challenges, another apex tree and partition path.
    const sample_update s = make_sample_update(16 * KiB_NODES, "update witness");
    const update_shape shape = update_shape_of(16 * KiB_NODES);
    const update_partition_circuit c(shape, "update test size",
                                     partition_witness_of(shape, s.partitions.at(0), 1, commitments_of(s)));
    EXPECT_FALSE(synthesize_checked(c).satisfied);
}

TEST(UpdateWitness, MisshapenProofsAreRefusedNamingPartitionAndChallenge) {
    const sample_update s = make_sample_update(KiB_NODES, "misshapen");
    const update_shape shape = update_shape_of(KiB_NODES);
    const update_commitments pub = commitments_of(s);
    const partition_proof& good = s.partitions.at(0);

    expect_input_error([&] { partition_witness_of(shape, good, 1, pub); }, {"partition 1", "1 partitions"});
    update_commitments other_h = pub;
    other_h.h = 2;
    expect_input_error([&] { partition_witness_of(shape, good, 0, other_h); }, {"partition 0", "h = 2"});

    partition_proof p = good;
    p.challenge_proofs.pop_back();
    expect_input_error([&] { partition_witness_of(shape, p, 0, pub, "file.bin"); }, {"file.bin", "partition 0"});

    p = good;
    p.apex_leafs.push_back(p.apex_leafs[0]);
    expect_input_error([&] { partition_witness_of(shape, p, 0, pub); }, {"partition 0", "apex"});

    p = good;
    p.challenge_proofs[2].proof_r_old.base_path[0].hashes.pop_back();
    expect_input_error([&] { partition_witness_of(shape, p, 0, pub); }, {"partition 0", "challenge 2", "proof_r_old"});

    p = good;
    p.challenge_proofs[4].proof_d_new.leaf.fill(0xff);  // not below r
    expect_input_error([&] { partition_witness_of(shape, p, 0, pub); }, {"partition 0", "challenge 4", "proof_d_new"});
}

TEST(UpdateWitness, PartitionPathMustBeChallengeZeros) {
    // 16 KiB: 2 partitions, tree D's top level is the partition path every challenge of partition 1 shares.
    const sample_update s = make_sample_update(16 * KiB_NODES, "partition path");
    const update_shape shape = update_shape_of(16 * KiB_NODES);
    partition_proof p = s.partitions.at(1);
    p.challenge_proofs[3].proof_d_new.base_path.back().hashes[0] = bytes_of(ff::fr_t::from_u64(12345));
    expect_input_error([&] { partition_witness_of(shape, p, 1, commitments_of(s)); },
                       {"partition 1", "challenge 3", "partition level"});
}

// ---- the partitions of an update, checked natively ----------------------------------------------

TEST(UpdatePartitionCircuits, ChecksNativelyBeforeBuilding) {
    const registered_update_proof& proof = registered_update_proof_by_name("StackedDrgUpdate2KiBV1");
    const sample_update s = make_sample_update(proof.nodes(), "partitions");
    const update_commitments pub = commitments_of(s);
    const std::vector<std::string> sources = {"update-partition-0.bin"};

    const auto circuits = partition_circuits_of(proof, s.partitions, pub, sources);
    ASSERT_EQ(circuits.size(), 1u);
    EXPECT_EQ(circuits[0].name(), "update:StackedDrgUpdate2KiBV1");
    EXPECT_EQ(circuits[0].public_inputs(),
              generate_public_inputs(proof.shape(), 0, s.h, s.comm_r_old, s.comm_d_new, s.comm_r_new));

    std::vector<partition_proof> two = {s.partitions[0], s.partitions[0]};
    expect_input_error([&] { partition_circuits_of(proof, two, pub); }, {"2 partition proofs", "1 partitions"});

    // A leaf of tree R new changed: its path no longer hashes to the root.
    std::vector<partition_proof> bad = s.partitions;
    bad[0].challenge_proofs[5].proof_r_new.leaf = bytes_of(ff::fr_t::from_u64(7));
    expect_input_error([&] { partition_circuits_of(proof, bad, pub, sources); },
                       {"update-partition-0.bin", "partition 0", "challenge 5"});
    // Skipping the native checks builds it (for proofs verified before).
    EXPECT_EQ(partition_circuits_of(proof, bad, pub, sources, false).size(), 1u);

    // Another comm_d_new: challenge 0's tree D root is not it.
    update_commitments other = pub;
    other.comm_d_new += ff::fr_t::one();
    expect_input_error([&] { partition_circuits_of(proof, s.partitions, other, sources); },
                       {"update-partition-0.bin", "partition 0", "comm_d_new"});
    // Another comm_r_old: Poseidon(comm_c, root_r_old) is not it.
    other = pub;
    other.comm_r_old += ff::fr_t::one();
    expect_input_error([&] { partition_circuits_of(proof, s.partitions, other, sources); }, {"comm_r_old"});
}

// ---- the built-in circuit ---------------------------------------------------------------------------

TEST(UpdateRegistry, BuildsSampledAndBlankCircuits) {
    auto c = circuits::make_circuit("update:StackedDrgUpdate2KiBV1@s");
    EXPECT_EQ(c->name(), "update:StackedDrgUpdate2KiBV1@s");
    ASSERT_EQ(c->public_inputs().size(), 4u);
    EXPECT_EQ(c->public_inputs()[0], ff::fr_t::from_u64(1));  // k 0, h_select 1 (h = 1 = hs[0])
    const checked r = synthesize_checked(*c);
    EXPECT_TRUE(r.satisfied) << r.first_failure;
    EXPECT_EQ(r.inputs, c->public_inputs());
    EXPECT_EQ(circuits::make_circuit("update:StackedDrgUpdate2KiBV1")->name(), "update:StackedDrgUpdate2KiBV1");
    // Go's constant name is accepted too.
    EXPECT_EQ(circuits::make_circuit("update:RegisteredUpdateProof_StackedDrg2KiBV1")->public_inputs().size(), 4u);

    // Above 8 MiB: blank, counted as published (reference 3.5).
    auto big = circuits::make_circuit("update:StackedDrgUpdate32GiBV1");
    EXPECT_EQ(big->name(), "update:StackedDrgUpdate32GiBV1");
    EXPECT_TRUE(big->public_inputs().empty());
    cs::counting_cs counting;
    circuits::make_circuit("update:StackedDrgUpdate2KiBV1")->synthesize(counting);
    EXPECT_EQ(counting.num_constraints(), 1705039u);

    circuits::check_circuit_spec("update:StackedDrgUpdate8MiBV1@x");  // nothing built
    EXPECT_THROW(circuits::check_circuit_spec("update:StackedDrgUpdate3KiBV1"), input_error);
    EXPECT_THROW(circuits::make_circuit("update:StackedDrg2KiBV1"), input_error);  // a PoRep name
}

// ---- Groth16 ---------------------------------------------------------------------------------------

groth16::rng_fn seeded(uint64_t seed) {
    auto g = std::make_shared<std::mt19937_64>(seed);
    return [g] { return (*g)(); };
}

TEST(UpdateGroth16, OneKiBPartitionProvesAndVerifies) {
    const update_shape shape = update_shape_of(KiB_NODES);
    const sample_update s = make_sample_update(KiB_NODES, "groth16");
    ASSERT_EQ(s.partitions.size(), 1u);
    const groth16::setup_result setup =
        groth16::generate_random_parameters(update_partition_circuit(shape, "update 1 KiB"), seeded(1));
    const auto pvk = groth16::prepare_verifying_key(setup.params.vk);
    ASSERT_EQ(setup.params.vk.ic.size(), 5u);

    for (unsigned k = 0; k < shape.partition_count; ++k) {
        const update_partition_circuit c(shape, "update 1 KiB",
                                         partition_witness_of(shape, s.partitions[k], k, commitments_of(s)));
        const groth16::proof_result r = groth16::create_proof(c, setup.params, seeded(2 + k));
        const std::vector<ff::fr_t> inputs =
            generate_public_inputs(shape, k, s.h, s.comm_r_old, s.comm_d_new, s.comm_r_new);
        EXPECT_EQ(r.public_inputs, inputs);
        EXPECT_TRUE(groth16::verify_proof(pvk, r.pi, inputs));

        std::vector<ff::fr_t> other = inputs;
        other[2] += ff::fr_t::one();  // comm_d_new
        EXPECT_FALSE(groth16::verify_proof(pvk, r.pi, other));
        other = inputs;
        other[3] += ff::fr_t::one();  // comm_r_new
        EXPECT_FALSE(groth16::verify_proof(pvk, r.pi, other));
        // The first input with another k: one partition here (no partition bits), so k + 1 is k_and_h_select + 1.
        other = inputs;
        other[0] += ff::fr_t::one();
        EXPECT_FALSE(groth16::verify_proof(pvk, r.pi, other));
    }
}

}  // namespace
