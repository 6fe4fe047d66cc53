// The parameters store: a test circuit without files gets one generated pair, loaded again by a later
// store; processes that miss the same pair at once (the gpuds of several GPUs) end with the same key, the one
// on disk; a missing PoRep file is an error naming it.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "common/groth16/params_file.hpp"
#include "common/util/errors.hpp"
#include "daemon/params_store.hpp"

using namespace cuzk;
namespace fs = std::filesystem;

namespace {

class ParamsStore : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / fmt::format("cuzk-test-params-{}-{}", ::getpid(),
                                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

std::vector<std::uint8_t> vk_bytes(const groth16::parameters& p) { return groth16::vk_to_bytes(p.vk); }

}  // namespace

TEST_F(ParamsStore, GeneratesAMissingTestPairOnceAndLoadsItAfterwards) {
    daemon::params_store sut(dir_);
    const auto first = sut.get("mul:64@3");
    EXPECT_EQ(sut.get("mul:64@9"), first);  // one shape, one resident copy whatever the seed
    ASSERT_TRUE(fs::exists(daemon::params_path(dir_, "mul:64")));
    EXPECT_EQ(groth16::vk_to_bytes(groth16::read_vk(daemon::vk_path(dir_, "mul:64"))), vk_bytes(*first));
    daemon::params_store later(dir_);
    EXPECT_EQ(vk_bytes(*later.get("mul:64")), vk_bytes(*first));
}

TEST_F(ParamsStore, ProcessesMissingThePairAtOnceShareOneKey) {
    // Large enough that an unguarded setup (about 0.1 s each here) would overlap in the two processes.
    const std::string shape = "mul:4096";
    std::vector<pid_t> children;
    for (int i = 0; i < 2; ++i) {
        const pid_t pid = ::fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            int code = 0;
            try {
                daemon::params_store store(dir_);
                groth16::write_vk(dir_ / fmt::format("child{}.vk.out", i), store.get(shape)->vk);
            } catch (...) {
                code = 1;
            }
            ::_exit(code);
        }
        children.push_back(pid);
    }
    for (const pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    const auto on_disk = groth16::vk_to_bytes(groth16::read_vk(daemon::vk_path(dir_, shape)));
    for (int i = 0; i < 2; ++i) {
        const auto child = dir_ / fmt::format("child{}.vk.out", i);
        EXPECT_EQ(groth16::vk_to_bytes(groth16::read_vk(child)), on_disk) << "process " << i << " proves with another key";
    }
}

TEST_F(ParamsStore, AMissingPorepFileIsAnErrorNamingIt) {
    daemon::params_store sut(dir_);
    try {
        (void)sut.get("porep:StackedDrg2KiBV1_1");
        FAIL() << "PoRep parameters were made up";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("porep_StackedDrg2KiBV1_1.params"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(daemon::params_path(dir_, "porep:StackedDrg2KiBV1_1")));
}
