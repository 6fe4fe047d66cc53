// C1 <-> circuit witness: the vanilla proofs the test sealer writes, read back through
// witness_of, give exactly the witness made directly from the sealed sector, survive the JSON
// writer and parser, and satisfy the circuit; values that are not field elements or proofs of the
// wrong shape are refused with their JSON path.
#include <gtest/gtest.h>

#include <random>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/cs/checking_cs.hpp"
#include "common/porep/c1_witness.hpp"
#include "common/porep/native_seal.hpp"
#include "common/porep/sample_sector.hpp"
#include "common/porep/synthetic_c1.hpp"
#include "common/util/errors.hpp"

namespace {

using namespace cuzk;

bool same_paths(const std::vector<merkle::path_level>& a, const std::vector<merkle::path_level>& b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
        if (a[i].siblings != b[i].siblings || a[i].index != b[i].index) return false;
    return true;
}

struct sealed {
    porep::sample_sector s;
    c1::seal_commit_phase1_output c1;
};

sealed make(const char* name) {
    const auto& proof = porep::registered_proof_by_name(name);
    auto s = porep::make_sample_sector(proof, "c1-witness");
    auto c1 = porep::make_c1(proof, s.graph, s.sector, s.seed, s.ticket);
    return {std::move(s), std::move(c1)};
}

TEST(PorepC1Witness, RoundTripsThroughJsonAndSatisfiesTheCircuit) {
    auto [s, c1] = make("StackedDrg2KiBV1_1");
    const auto& proof = *s.proof;
    c1::check_consistency(c1);
    auto parsed = c1::parse_c1_json(c1::write_c1_json(c1));
    EXPECT_EQ(parsed, c1);
    EXPECT_EQ(&porep::registered_proof_of(parsed), &proof);

    auto pub = porep::public_inputs_of(parsed);
    EXPECT_EQ(pub.replica_id, s.sector.replica_id);
    EXPECT_EQ(pub.comm_r, s.sector.comm_r);
    auto w = porep::witness_of(parsed, proof, 0);
    auto direct = porep::make_partition_witness(s.sector, s.graph, porep::partition_challenges(proof, pub, 0));
    ASSERT_EQ(w.challenges.size(), direct.challenges.size());
    EXPECT_EQ(w.comm_c, s.sector.comm_c);
    EXPECT_EQ(w.comm_r_last, s.sector.comm_r_last);
    for (size_t i = 0; i < w.challenges.size(); ++i) {
        const auto &a = w.challenges[i], &b = direct.challenges[i];
        EXPECT_EQ(a.challenge, b.challenge);
        EXPECT_EQ(a.data_leaf, b.data_leaf);
        EXPECT_TRUE(same_paths(a.comm_d_path, b.comm_d_path));
        EXPECT_TRUE(same_paths(a.comm_r_last_path, b.comm_r_last_path));
        EXPECT_TRUE(same_paths(a.comm_c_path, b.comm_c_path));
        for (size_t j = 0; j < 6; ++j) EXPECT_EQ(a.drg_parents[j].rows, b.drg_parents[j].rows);
        for (size_t j = 0; j < 8; ++j) EXPECT_TRUE(same_paths(a.exp_parents[j].path, b.exp_parents[j].path));
    }
    cs::checking_cs sys;
    porep::synthesize_stacked_partition(sys, porep::stacked_circuit_shape::of(proof), &w);
    EXPECT_TRUE(sys.is_satisfied()) << *sys.first_failure();
}

TEST(PorepC1Witness, ValuesAboveTheModulusNameTheirPath) {
    auto [s, c1] = make("StackedDrg2KiBV1_1");
    c1.partitions[0][1].replica_columns.exp_parents[4].col.rows[1].fill(0xff);
    try {
        porep::witness_of(c1, *s.proof, 0);
        FAIL() << "accepted";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("$.vanilla_proofs.StackedDrg2KiBV1[0][1].replica_column_proofs."
                                             "exp_parents[4].column.rows[1]"),
                  std::string::npos)
            << e.what();
    }
}

TEST(PorepC1Witness, CountsOfAnotherSectorSizeAreRefused) {
    auto [s, c1] = make("StackedDrg2KiBV1_1");
    c1.partitions[0].pop_back();
    EXPECT_THROW(porep::registered_proof_of(c1), input_error);
    auto [s2, c2] = make("StackedDrg2KiBV1_1");
    c2.partitions[0][0].comm_d_proof.base_path.pop_back();
    EXPECT_THROW(porep::witness_of(c2, *s2.proof, 0), input_error);
    auto [s3, c3] = make("StackedDrg2KiBV1_1");
    c3.partitions[0][1].comm_r_last_proof.root[0] ^= 1;  // another tree R root than challenge 0's
    EXPECT_THROW(porep::witness_of(c3, *s3.proof, 0), input_error);
}

TEST(PorepC1Witness, SyntheticC1IsConsistentButNotAValidWitness) {
    for (const char* name : {"StackedDrg2KiBV1_1", "StackedDrg8MiBV1_1_Feat_SyntheticPoRep"}) {
        const auto& proof = porep::registered_proof_by_name(name);
        auto c1 = porep::make_synthetic_c1(proof, "bench");
        EXPECT_NO_THROW(c1::check_consistency(c1)) << name;
        EXPECT_EQ(c1::parse_c1_json(c1::write_c1_json(c1)), c1);
        auto w = porep::witness_of(c1, proof, 0);
        cs::checking_cs sys;
        porep::synthesize_stacked_partition(sys, porep::stacked_circuit_shape::of(proof), &w);
        EXPECT_FALSE(sys.is_satisfied()) << name;
        // The challenges are the real ones for the C1's replica id and seed.
        auto challenges = porep::partition_challenges(proof, porep::public_inputs_of(c1), 0);
        for (size_t i = 0; i < challenges.size(); ++i) EXPECT_EQ(w.challenges[i].challenge, challenges[i]);
    }
}

}  // namespace
