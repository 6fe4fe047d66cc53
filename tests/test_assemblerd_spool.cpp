// The spool keeps what the check of a PoRep C1 derived (its registered proof and public inputs) beside the
// input, so that a restart reads that instead of parsing the C1 again (~1 s for a 32 GiB C1); a kept file that
// is missing or torn is no harm: the C1 is parsed and the file written again.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "assemblerd/input_checker.hpp"
#include "assemblerd/spool.hpp"
#include "common/c1/seal_commit_phase1.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/porep/synthetic_c1.hpp"
#include "common/util/errors.hpp"
#include "daemon/porep_public_inputs_file.hpp"

namespace fs = std::filesystem;
using namespace cuzk;

namespace {

class AssemblerdSpool : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cuzk-spool-test-" + std::to_string(::getpid()));
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        c1_path_ = dir_ / "c1.json";
        const auto c1 = porep::make_synthetic_c1(porep::registered_proof_by_name("StackedDrg2KiBV1_1"), "spool");
        std::ofstream(c1_path_) << c1::write_c1_json(c1);
    }
    void TearDown() override { fs::remove_all(dir_); }

    assemblerd::job porep_job(assemblerd::spool& s, std::uint64_t id) {
        assemblerd::job j;
        j.id = id;
        j.kind = ipc::proof_kind::porep_c2;
        j.input = s.take_input(id, ipc::c1_source::inline_bytes, c1_path_.string(), bytes_of(c1_path_));
        return j;
    }
    static void overwrite(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::trunc) << text; }
    static std::vector<std::byte> bytes_of(const fs::path& p) {
        std::ifstream in(p, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const auto* b = reinterpret_cast<const std::byte*>(text.data());
        return {b, b + text.size()};
    }

    fs::path dir_, c1_path_;
};

std::string read_all(const fs::path& p) {
    std::ifstream f(p);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

}  // namespace

TEST_F(AssemblerdSpool, AC1IsParsedOnceAndItsPublicInputsAreReadAfterThat) {
    assemblerd::spool s(dir_ / "spool");
    auto j = porep_job(s, 7);
    s.load_input(j, c1_path_.string());
    ASSERT_TRUE(j.porep);
    const auto kept = s.root() / "jobs/7/public_inputs";
    ASSERT_TRUE(fs::exists(kept));
    EXPECT_EQ(read_all(kept).rfind("cuzk-porep-public-inputs 1\nregistered_proof StackedDrg2KiBV1_1\n", 0), 0u);

    // The C1 spoiled: a second load (a restart) does not read it.
    overwrite(s.root() / j.input, "not a C1");
    assemblerd::job again;
    again.id = 7;
    again.kind = ipc::proof_kind::porep_c2;
    again.input = j.input;
    s.load_input(again, "the spooled C1");
    ASSERT_TRUE(again.porep);
    EXPECT_EQ(again.circuit(), j.circuit());
    EXPECT_EQ(again.porep->partition_inputs(0), j.porep->partition_inputs(0));

    // Without the kept file, the spoiled C1 is parsed, and refused naming it.
    fs::remove(kept);
    try {
        s.load_input(again, "the spooled C1");
        ADD_FAILURE() << "a spoiled C1 was taken";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("the spooled C1"), std::string::npos) << e.what();
    }
}

TEST_F(AssemblerdSpool, ATornOrForeignKeptFileIsIgnoredAndWrittenAgain) {
    assemblerd::spool s(dir_ / "spool");
    auto j = porep_job(s, 3);
    s.load_input(j, c1_path_.string());
    const auto kept = s.root() / "jobs/3/public_inputs";
    const std::string whole = read_all(kept);
    for (const std::string& bad : {whole.substr(0, whole.size() / 2), std::string("cuzk-porep-public-inputs 2\n"),
                                  std::string(""), whole.substr(0, whole.find("seed"))}) {
        EXPECT_FALSE(daemon::read_porep_public_inputs(kept.string() + ".none"));
        overwrite(kept, bad);
        EXPECT_FALSE(daemon::read_porep_public_inputs(kept)) << bad;
        assemblerd::job again;
        again.id = 3;
        again.kind = ipc::proof_kind::porep_c2;
        again.input = j.input;
        s.load_input(again, c1_path_.string());  // parses the C1, which is intact
        ASSERT_TRUE(again.porep);
        EXPECT_EQ(again.porep->partition_inputs(0), j.porep->partition_inputs(0));
        EXPECT_EQ(read_all(kept), whole) << "written whole again";
    }
    // A value that is not a field element (all bits set) is not taken either.
    std::string forged = whole;
    const auto at = forged.find("comm_r ") + 7;
    forged.replace(at, 64, std::string(64, 'f'));
    overwrite(kept, forged);
    EXPECT_FALSE(daemon::read_porep_public_inputs(kept));
}

// The input checker spools and checks submissions off the loop: a good C1 comes back loaded, a bad one with the
// error naming it and nothing left in the spool.
TEST_F(AssemblerdSpool, TheInputCheckerSpoolsAndChecksOffTheLoop) {
    assemblerd::spool s(dir_ / "spool");
    const auto bad_path = dir_ / "bad.json";
    overwrite(bad_path, "{\"registered_proof\": 12}");
    assemblerd::input_checker checker(s, false);  // synthetic C1s: the circuit check is for real ones
    for (std::uint64_t id : {1, 2}) {
        assemblerd::job j;
        j.id = id;
        j.kind = ipc::proof_kind::porep_c2;
        const auto& file = id == 1 ? c1_path_ : bad_path;
        checker.submit(std::move(j), ipc::c1_source::inline_bytes, file.string(), bytes_of(file));
    }
    std::vector<assemblerd::input_checker::outcome> got;
    for (int i = 0; i < 3000 && got.size() < 2; ++i) {
        for (auto& o : checker.take()) got.push_back(std::move(o));
        if (got.size() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(checker.busy(), 0u);
    for (const auto& o : got) {
        if (o.checked.id == 1) {
            EXPECT_EQ(o.error, "");
            ASSERT_TRUE(o.checked.porep);
            EXPECT_EQ(o.checked.input, "jobs/1/input");
            EXPECT_TRUE(fs::exists(s.root() / "jobs/1/public_inputs"));
        } else {
            EXPECT_NE(o.error.find(bad_path.string()), std::string::npos) << o.error;
            EXPECT_FALSE(o.internal);
            EXPECT_FALSE(fs::exists(s.root() / "jobs/2")) << "a refused input leaves nothing in the spool";
        }
    }
}

// A WinningPoSt submitted while every general checking thread is busy with a PoRep C1 (each ~1 s at 32 GiB;
// held up here) is checked at once by the thread kept for its priority; a WindowPoSt waits, and goes ahead
// of the PoRep C1s queued before it.
TEST_F(AssemblerdSpool, AWinningPostIsCheckedAtOnceWhileC1sHoldEveryOtherThread) {
    assemblerd::spool s(dir_ / "spool");
    std::mutex m;
    std::condition_variable cv;
    std::set<std::uint64_t> released;  // C1s let through the hook
    bool release_all = false;
    std::vector<std::uint64_t> started;
    assemblerd::input_checker checker(s, false, [&](const assemblerd::job& j) {
        std::unique_lock lock(m);
        started.push_back(j.id);
        cv.notify_all();
        if (j.priority == 0) cv.wait(lock, [&] { return release_all || released.count(j.id) != 0; });
    });
    auto submit = [&](std::uint64_t id, std::int32_t priority) {
        assemblerd::job j;
        j.id = id;
        j.kind = ipc::proof_kind::porep_c2;  // the input's kind does not decide the order: its priority does
        j.priority = priority;
        checker.submit(std::move(j), ipc::c1_source::inline_bytes, c1_path_.string(), bytes_of(c1_path_));
    };
    auto wait_started = [&](std::size_t n) {
        std::unique_lock lock(m);
        return cv.wait_for(lock, std::chrono::seconds(30), [&] { return started.size() >= n; });
    };
    auto take_until = [&](std::vector<assemblerd::input_checker::outcome>& got, std::size_t n) {
        for (int i = 0; i < 3000 && got.size() < n; ++i) {
            for (auto& o : checker.take()) got.push_back(std::move(o));
            if (got.size() < n) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    };
    const unsigned general = assemblerd::input_checker::threads;
    for (std::uint64_t id = 1; id <= general + 1; ++id) submit(id, 0);  // one more C1 than general threads
    ASSERT_TRUE(wait_started(general));
    submit(100, ipc::post_priority_floor);     // a WindowPoSt
    submit(200, ipc::winning_post_priority);  // a WinningPoSt
    std::vector<assemblerd::input_checker::outcome> got;
    take_until(got, 1);
    ASSERT_EQ(got.size(), 1u) << "only the WinningPoSt is through while the C1s hold the general threads";
    EXPECT_EQ(got[0].checked.id, 200u);
    EXPECT_EQ(got[0].error, "");
    {
        std::lock_guard lock(m);
        released.insert(started.front());  // one general thread comes free: it takes the WindowPoSt
    }
    cv.notify_all();
    ASSERT_TRUE(wait_started(general + 2));
    {
        std::lock_guard lock(m);
        EXPECT_EQ(started[general], 200u);
        EXPECT_EQ(started[general + 1], 100u) << "the WindowPoSt goes before the C1 queued ahead of it";
        release_all = true;
    }
    cv.notify_all();
    take_until(got, general + 3);
    ASSERT_EQ(got.size(), general + 3);
    for (const auto& o : got) EXPECT_EQ(o.error, "") << "job " << o.checked.id;
    EXPECT_EQ(checker.busy(), 0u);
}

// Nothing a client sends makes the service read outside the spool: an input named by its path is refused naming
// it, and nothing is spooled.
TEST_F(AssemblerdSpool, AnInputNamedByItsPathIsRefused) {
    assemblerd::spool s(dir_ / "spool");
    try {
        (void)s.take_input(9, ipc::c1_source::path, c1_path_.string(), {});
        FAIL() << "an input named by its path was taken";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find(c1_path_.string() + "') is not taken"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(fs::exists(dir_ / "spool" / "jobs" / "9" / "input"));
    EXPECT_THROW((void)s.take_input(9, ipc::c1_source::spool, "../c1.json", {}), input_error);
}
