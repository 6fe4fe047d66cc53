// The input of a test-circuit job (daemon/test_job_input.hpp), as the API and assemblerd check it at submission.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "common/util/errors.hpp"
#include "daemon/test_job_input.hpp"

namespace {

using namespace cuzk;

// Seen with the API request fuzz target (tests/fuzz/fuzz_api_request.cpp): checking a job whose circuit is a small
// PoRep or PoSt size built that circuit, sealing a sector on the thread answering the request (minutes under the
// sanitizer for 8 MiB). The check names the circuit's spec and builds nothing.
TEST(TestJobInput, CheckingAPoRepOrPoStCircuitBuildsNothing) {
    const auto start = std::chrono::steady_clock::now();
    const auto porep = daemon::parse_test_job_input(R"({"circuit": "porep:StackedDrg8MiBV1_1", "partitions": 2})", "job");
    const auto post = daemon::parse_test_job_input(R"({"circuit": "post:StackedDrgWindow8MiBV1_1"})", "job");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));  // one 8 MiB sealing takes seconds
    EXPECT_EQ(porep.circuit, "porep:StackedDrg8MiBV1_1");
    EXPECT_EQ(porep.partitions, 2u);
    EXPECT_EQ(post.partition_spec(0), "post:StackedDrgWindow8MiBV1_1@1");
}

TEST(TestJobInput, RefusesUnknownCircuitsNamingTheField) {
    for (const char* json : {R"({"circuit": "porep:StackedDrg3KiBV1"})", R"({"circuit": "mul:0"})",
                             R"({"circuit": "blake2s:3"})"}) {
        try {
            (void)daemon::parse_test_job_input(json, "job");
            ADD_FAILURE() << "accepted " << json;
        } catch (const input_error& e) {
            EXPECT_NE(std::string(e.what()).find("job: "), std::string::npos) << e.what();
        }
    }
}

// Found by the API request fuzz target in a CI run: a number too large for a double is nlohmann's out_of_range,
// not its parse_error, and escaped the check as an unexpected exception. It is a bad job like any other.
TEST(TestJobInput, ANumberTooLargeIsABadJob) {
    try {
        (void)daemon::parse_test_job_input(R"({"circuit": "mul:64", "partitions": 2E288888888888})", "job");
        ADD_FAILURE() << "accepted";
    } catch (const input_error& e) {
        EXPECT_NE(std::string(e.what()).find("job: not a test-circuit job (JSON)"), std::string::npos) << e.what();
    }
}

}  // namespace
