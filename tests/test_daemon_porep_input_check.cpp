// A C1 with one wrong value is refused at submission, naming the partition and the failing gadget (issue: "A C1
// with one wrong digit is proved for a whole partition before 'partition proofs 0 do not verify'"): the first
// challenge of every partition is checked against the circuit. A sealed 2 KiB test sector's C1 passes; the same
// C1 with one sibling of one Merkle path changed (which the structural check cannot see), or with another
// comm_r, is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/c1/seal_commit_phase1.hpp"
#include "common/util/errors.hpp"
#include "daemon/porep_input_check.hpp"
#include "daemon/porep_job_input.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
namespace fs = std::filesystem;

namespace {

class PorepInputCheck : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = fs::temp_directory_path() / ("cuzk-input-check-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        const auto r = test::run_cuzk("seal-test --registered-proof StackedDrg2KiBV1_1 --rng input-check --out " +
                                      dir_.string());
        ASSERT_EQ(r.exit_code, 0) << r.output;
    }
    static void TearDownTestSuite() { fs::remove_all(dir_); }

    static c1::seal_commit_phase1_output sealed() { return c1::read_c1_file(dir_ / "c1.json"); }
    // Writes |c1| and reads it back as a job input (parse and structural check), keeping the C1.
    static daemon::porep_job_input job_of(const c1::seal_commit_phase1_output& c1, const std::string& name) {
        const auto path = dir_ / name;
        std::ofstream(path) << c1::write_c1_json(c1);
        return daemon::read_porep_job_input(path, name, true);
    }
    static std::string refusal(const daemon::porep_job_input& in) {
        try {
            daemon::check_first_challenges(in, "c1.json");
        } catch (const input_error& e) {
            return e.what();
        }
        return {};
    }

    static inline fs::path dir_;
};

}  // namespace

TEST_F(PorepInputCheck, ASealedSectorsC1Passes) { EXPECT_EQ(refusal(job_of(sealed(), "good.json")), ""); }

TEST_F(PorepInputCheck, OneChangedSiblingIsRefusedNamingThePartitionAndTheGadget) {
    auto c1 = sealed();
    ASSERT_FALSE(c1.partitions.empty());
    ASSERT_FALSE(c1.partitions[0].empty());
    auto& path = c1.partitions[0][0].comm_d_proof.base_path;
    ASSERT_FALSE(path.empty());
    path[0].hashes[0][0] ^= 1;  // byte 0 is the lowest: the value stays a canonical field element
    const auto in = job_of(c1, "sibling.json");  // the structural check does not walk paths: it passes
    const auto why = refusal(in);
    EXPECT_NE(why.find("c1.json: the C1 does not satisfy the PoRep circuit"), std::string::npos) << why;
    EXPECT_NE(why.find("partition 0"), std::string::npos) << why;
    EXPECT_NE(why.find("does not hold"), std::string::npos) << why;
}

TEST_F(PorepInputCheck, AnotherSeedIsRefusedNamingThePublicInput) {
    auto c1 = sealed();
    c1.seed[0] ^= 1;  // other challenges: the openings are of the wrong nodes
    const auto why = refusal(job_of(c1, "seed.json"));
    EXPECT_NE(why.find("partition 0"), std::string::npos) << why;
}
