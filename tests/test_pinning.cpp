// NUMA/CPU pinning: cpu list parsing and its errors, affinity really applied to the calling thread,
// CPUs and nodes the machine lacks rejected by name, a node on a one-node machine skipped (not fatal).
// Each pinning test runs in its own thread so the test runner's thread stays unpinned.
#include <gtest/gtest.h>

#include <numa.h>
#include <sched.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <thread>

#include "common/daemon/pinning.hpp"
#include "common/util/errors.hpp"

using cuzk::input_error;
using cuzk::daemon::apply_pinning;
using cuzk::daemon::parse_cpu_list;
using cuzk::daemon::pinning;

namespace {

// Runs |body| on a fresh thread and rethrows what it threw.
template <typename F>
void on_own_thread(F body) {
    std::exception_ptr error;
    std::thread t([&] {
        try {
            body();
        } catch (...) {
            error = std::current_exception();
        }
    });
    t.join();
    if (error) std::rethrow_exception(error);
}

std::string error_of(const pinning& p) {
    std::string message;
    on_own_thread([&] {
        try {
            apply_pinning(p);
        } catch (const input_error& e) {
            message = e.what();
        }
    });
    return message;
}

}  // namespace

TEST(pinning, parse_cpu_list_ranges_and_singles) {
    EXPECT_EQ(parse_cpu_list("0-3,16"), (std::vector<int>{0, 1, 2, 3, 16}));
    EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
    EXPECT_EQ(parse_cpu_list("7,2-3, 3 ,2"), (std::vector<int>{2, 3, 7}));  // sorted, deduplicated
    EXPECT_EQ(parse_cpu_list("4-4"), (std::vector<int>{4}));
}

TEST(pinning, parse_cpu_list_errors_quote_the_list) {
    for (const char* bad : {"", "1,,2", "a", "1-", "-3", "3-1", "1.5", "99999", "0-7,"}) {
        try {
            parse_cpu_list(bad);
            ADD_FAILURE() << "accepted \"" << bad << "\"";
        } catch (const input_error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("\"") + bad + "\""), std::string::npos) << e.what();
        }
    }
    try {
        parse_cpu_list("3-1");
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("backwards"), std::string::npos) << e.what();
    }
}

TEST(pinning, cpu_list_sets_the_affinity_of_the_calling_thread) {
    on_own_thread([] {
        apply_pinning(pinning{std::nullopt, "0"});
        cpu_set_t set;
        ASSERT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
        EXPECT_EQ(CPU_COUNT(&set), 1);
        EXPECT_TRUE(CPU_ISSET(0, &set));
        // Threads created afterwards inherit it: the reason daemons pin before starting pools.
        std::thread child([] {
            cpu_set_t inherited;
            ASSERT_EQ(::sched_getaffinity(0, sizeof inherited, &inherited), 0);
            EXPECT_EQ(CPU_COUNT(&inherited), 1);
        });
        child.join();
    });
    cpu_set_t mine;
    ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
    EXPECT_GE(CPU_COUNT(&mine), 1);
}

TEST(pinning, a_cpu_the_machine_lacks_is_named) {
    long cpus = ::sysconf(_SC_NPROCESSORS_CONF);
    ASSERT_GT(cpus, 0);
    std::string list = "0," + std::to_string(cpus);
    std::string message = error_of(pinning{std::nullopt, list});
    EXPECT_NE(message.find("CPU " + std::to_string(cpus) + " does not exist"), std::string::npos) << message;
    EXPECT_NE(message.find(list), std::string::npos) << message;
}

TEST(pinning, a_bad_cpu_list_changes_nothing) {
    on_own_thread([] {
        cpu_set_t before, after;
        ASSERT_EQ(::sched_getaffinity(0, sizeof before, &before), 0);
        EXPECT_THROW(apply_pinning(pinning{0, "0-x"}), input_error);
        ASSERT_EQ(::sched_getaffinity(0, sizeof after, &after), 0);
        EXPECT_TRUE(CPU_EQUAL(&before, &after));
    });
}

TEST(pinning, negative_node_is_rejected) {
    std::string message = error_of(pinning{-1, ""});
    EXPECT_NE(message.find("numa_node -1"), std::string::npos) << message;
}

TEST(pinning, node_on_this_machine) {
    bool single = numa_available() < 0 || numa_max_node() == 0;
    if (single) {
        // One node: nothing to choose, so any node of a production config is skipped, not fatal.
        EXPECT_EQ(error_of(pinning{0, ""}), "");
        EXPECT_EQ(error_of(pinning{3, ""}), "");
    } else {
        EXPECT_EQ(error_of(pinning{0, ""}), "");
        int missing = numa_max_node() + 1;
        std::string message = error_of(pinning{missing, ""});
        EXPECT_NE(message.find("numa_node " + std::to_string(missing)), std::string::npos) << message;
    }
}

TEST(pinning, nothing_configured_is_a_no_op) {
    on_own_thread([] {
        cpu_set_t before, after;
        ASSERT_EQ(::sched_getaffinity(0, sizeof before, &before), 0);
        apply_pinning(pinning{});
        ASSERT_EQ(::sched_getaffinity(0, sizeof after, &after), 0);
        EXPECT_TRUE(CPU_EQUAL(&before, &after));
    });
}
