// The tests' shared outputs (support/shared_outputs.hpp): a command's outputs are made once and reused, made again
// when the stamp no longer matches (a rebuilt cuzk), never kept after a failure; and a test's copy keeps what it
// writes to itself. A tiny circuit's setup (milliseconds) stands for the slow ones.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/shared_outputs.hpp"

namespace fs = std::filesystem;

namespace {

class SharedOutputs : public ::testing::Test {
protected:
    // A circuit size of this process's own, so that parallel runs of the test do not share its directory; at most
    // 4,159 constraints, so that its files stay well under linked_copy's 16 MiB (with any pid: mul:32710's
    // parameters, ~19 MB, were linked rather than copied and failed ACopyKeepsWhatTheTestWritesToItself).
    void SetUp() override {
        n_ = 64 + getpid() % 4096;
        args_ = "setup --circuit mul:" + std::to_string(n_) + " --progress-interval 0";
    }
    void TearDown() override {
        const auto made = cuzk::test::cuzk_output_once(args_);  // reused: only to learn the directory's name
        fs::remove_all(made.dir);
        fs::remove(made.dir.string() + ".made");
        fs::remove(made.dir.string() + ".lock");
        fs::remove_all(copy_);
    }
    static std::string read(const fs::path& p) {
        std::ifstream in(p);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }
    static bool reused(const cuzk::test::shared_output& o) { return o.made.output.rfind("reused ", 0) == 0; }

    long n_ = 0;
    std::string args_;
    fs::path copy_ = fs::temp_directory_path() / ("cuzk_shared_outputs_" + std::to_string(getpid()));
};

TEST_F(SharedOutputs, MadeOnceThenReusedAndMadeAgainWhenTheStampChanges) {
    const auto first = cuzk::test::cuzk_output_once(args_);
    ASSERT_EQ(first.made.exit_code, 0) << first.made.output;
    EXPECT_FALSE(reused(first)) << first.made.output;
    const fs::path vk = first.dir / ("mul_" + std::to_string(n_) + ".vk");
    ASSERT_TRUE(fs::exists(vk)) << vk;
    const std::string key = read(vk);

    const auto second = cuzk::test::cuzk_output_once(args_);
    EXPECT_EQ(second.made.exit_code, 0);
    EXPECT_TRUE(reused(second)) << second.made.output;
    EXPECT_EQ(second.dir, first.dir);
    EXPECT_EQ(read(vk), key) << "reused, not made again";

    // Another stamp (what a rebuilt cuzk leaves): made again, with new random parameters.
    std::ofstream(first.dir.string() + ".made") << "another build\n";
    const auto third = cuzk::test::cuzk_output_once(args_);
    EXPECT_EQ(third.made.exit_code, 0) << third.made.output;
    EXPECT_FALSE(reused(third)) << third.made.output;
    EXPECT_NE(read(vk), key) << "the parameters were made again";
}

TEST_F(SharedOutputs, AFailedRunIsNotKept) {
    const std::string bad = "setup --circuit nosuch:" + std::to_string(getpid());
    for (int i = 0; i < 2; ++i) {
        const auto r = cuzk::test::cuzk_output_once(bad);
        EXPECT_EQ(r.made.exit_code, 2) << r.made.output;
        EXPECT_FALSE(reused(r)) << "attempt " << i << ": " << r.made.output;
        EXPECT_FALSE(fs::exists(r.dir.string() + ".made"));
        if (i == 1) {
            fs::remove_all(r.dir);
            fs::remove(r.dir.string() + ".lock");
        }
    }
}

TEST_F(SharedOutputs, ACopyKeepsWhatTheTestWritesToItself) {
    const auto made = cuzk::test::cuzk_output_once(args_);
    ASSERT_EQ(made.made.exit_code, 0) << made.made.output;
    cuzk::test::linked_copy(made.dir, copy_);
    for (const auto& e : fs::directory_iterator(made.dir)) {
        const fs::path mine = copy_ / e.path().filename();
        ASSERT_TRUE(fs::exists(mine)) << mine;
        EXPECT_FALSE(fs::is_symlink(mine)) << "a small file is copied: " << mine;
        std::ofstream(mine) << "changed";
        EXPECT_NE(read(e.path()), "changed") << "the shared file is untouched: " << e.path();
    }
    // A large file (parameters) is linked rather than copied.
    const fs::path big_dir = copy_ / "big-source";
    fs::create_directories(big_dir);
    {
        std::ofstream big(big_dir / "large.params", std::ios::binary);
        big.seekp((std::streamoff(16) << 20) + 1);
        big.put('x');
    }
    cuzk::test::linked_copy(big_dir, copy_ / "big-copy");
    EXPECT_TRUE(fs::is_symlink(copy_ / "big-copy" / "large.params"));
}

}  // namespace
