// A fallback PoSt partition's witness synthesized in parallel (sector slots in groups on TBB's threads, joined
// in order) equals the witness of one synthesis slot after slot: the same inputs, aux values and rows, for
// WindowPoSt (a partition of several sectors, padded) and WinningPoSt's 66 slots, under any thread count; a
// blank circuit or a used assignment is refused.
#include <gtest/gtest.h>

#include <tbb/task_arena.h>

#include <string>
#include <vector>

#include "common/post/parallel_synthesis.hpp"
#include "common/post/sample_post.hpp"
#include "common/witness/compact_vector_expansion.hpp"
#include "common/witness/witness_assignment.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::post;

void expect_same_witness(const witness::witness_assignment& got, const witness::witness_assignment& want,
                         const std::string& what) {
    EXPECT_EQ(got.num_circuit_constraints(), want.num_circuit_constraints()) << what;
    EXPECT_EQ(got.prover_rows(), want.prover_rows()) << what;
    ASSERT_EQ(got.num_inputs(), want.num_inputs()) << what;
    EXPECT_TRUE(std::equal(got.inputs().begin(), got.inputs().end(), want.inputs().begin())) << what;
    ASSERT_EQ(got.num_aux(), want.num_aux()) << what;
    EXPECT_EQ(witness::expand(got.aux()), witness::expand(want.aux())) << what;
}

void check(const post_partition_circuit& circuit, const std::string& what) {
    witness::witness_assignment serial;
    circuit.synthesize(serial);
    ASSERT_GT(serial.num_aux(), 0u);
    for (int threads : {1, 2, 3, 8}) {
        witness::witness_assignment parallel;
        tbb::task_arena(threads).execute([&] { synthesize_witness_parallel(circuit, parallel); });
        expect_same_witness(parallel, serial, what + ", " + std::to_string(threads) + " threads");
    }
}

TEST(PostParallelSynthesis, WindowPartitionEqualsSerialSynthesis) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWindow2KiBV1_1");
    check(make_sample_post(proof, "parallel", 2).circuit(), "window, 2 sectors");
    check(make_sample_post(proof, "padded", 1).circuit(), "window, 1 sector padded");
}

TEST(PostParallelSynthesis, WinningSlotsEqualSerialSynthesis) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWinning2KiBV1");
    check(make_sample_post(proof, "winning", 1).circuit(), "winning, 66 slots");
}

TEST(PostParallelSynthesis, RefusesABlankCircuitAndAUsedAssignment) {
    const auto& proof = registered_post_proof_by_name("StackedDrgWinning2KiBV1");
    witness::witness_assignment out;
    EXPECT_THROW(synthesize_witness_parallel(post_partition_circuit(proof), out), std::invalid_argument);
    const auto circuit = make_sample_post(proof, "used", 1).circuit();
    out.alloc(ff::fr_t::one());
    EXPECT_THROW(synthesize_witness_parallel(circuit, out), std::invalid_argument);
}

}  // namespace
