// assemblerd's proof verifier takes the completed jobs highest priority first, then in completion order: a
// WinningPoSt's proof is not held behind the PoRep proofs that completed just before it (its verification is
// what stands between the proof and Curio).
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "assemblerd/proof_verifier.hpp"
#include "ipc/messages.hpp"

using namespace cuzk;
namespace fs = std::filesystem;

TEST(AssemblerdProofVerifier, HigherPriorityIsVerifiedFirstThenCompletionOrder) {
    const fs::path dir = fs::temp_directory_path() / ("cuzk-verifier-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::mutex m;
    std::condition_variable cv;
    bool release = false;
    std::vector<std::uint64_t> order;
    {
        assemblerd::proof_verifier verifier(dir, [&](const assemblerd::job& j) {
            std::unique_lock lock(m);
            order.push_back(j.id);
            cv.notify_all();
            cv.wait(lock, [&] { return release; });  // the first job holds the thread while the rest arrive
        });
        auto submit = [&](std::uint64_t id, std::int32_t priority) {
            assemblerd::job j;
            j.id = id;
            j.kind = ipc::proof_kind::test_circuit;
            j.priority = priority;
            verifier.submit(std::move(j));
        };
        submit(1, 0);
        {
            std::unique_lock lock(m);
            ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return order.size() == 1; }));
        }
        submit(2, 0);                            // a PoRep completed
        submit(3, ipc::winning_post_priority);   // then a WinningPoSt
        submit(4, ipc::post_priority_floor);     // then a WindowPoSt
        submit(5, 0);
        {
            std::lock_guard lock(m);
            release = true;
        }
        cv.notify_all();
        std::vector<assemblerd::proof_verifier::outcome> got;
        for (int i = 0; i < 3000 && got.size() < 5; ++i) {
            for (auto& o : verifier.take()) got.push_back(std::move(o));
            if (got.size() < 5) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        ASSERT_EQ(got.size(), 5u) << "every job gets an outcome (these have no proof to check: an error each)";
        for (const auto& o : got) EXPECT_NE(o.error, "") << "job " << o.job_id;
    }
    EXPECT_EQ(order, (std::vector<std::uint64_t>{1, 3, 4, 2, 5}));
    fs::remove_all(dir);
}
