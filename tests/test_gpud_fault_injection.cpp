// The fault injector of the tests (CUZK_GPUD_INJECT_FAULTS): the plan's syntax, its refusal of malformed values
// naming the variable and the mistake, the schedules, and the decorator around the CPU backend: the chosen step
// throws cuda::cuda_error (what a failing GPU throws, so gpud classifies it as a device failure), the other
// steps and calls prove as the CPU backend does, and ",lost" makes device_lost() report the context lost after
// the first fault. Runs in every build, without a GPU.
#include <gtest/gtest.h>

#include <chrono>

#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/groth16/proving_assignment.hpp"
#include "common/groth16/setup.hpp"
#include "common/groth16/verifier.hpp"
#include "common/util/errors.hpp"
#include "gpud/cpu_backend.hpp"
#include "gpud/cuda/cuda_error.hpp"
#include "gpud/fault_injection.hpp"
#include "gpud/partition_failure.hpp"

using namespace cuzk;
using gpud::fault_plan;
using gpud::proving_step;

namespace {

std::string error_of(const std::string& text) {
    try {
        (void)gpud::parse_fault_plan(text);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

groth16::rng_fn seeded(std::uint64_t seed) {
    auto g = std::make_shared<std::mt19937_64>(seed);
    return [g] { return (*g)(); };
}

// A small circuit's parameters, witness and verifying key, made once.
struct fixture_circuit {
    std::unique_ptr<circuits::circuit> circuit = circuits::make_circuit("mul:8");
    groth16::setup_result setup = groth16::generate_random_parameters(*circuit, seeded(5));
    groth16::prepared_verifying_key pvk = groth16::prepare_verifying_key(setup.params.vk);
    groth16::proving_assignment pa = [this] {
        groth16::proving_assignment a;
        circuit->synthesize(a);
        a.finish();
        return a;
    }();
};
const fixture_circuit& mul8() {
    static const fixture_circuit c;
    return c;
}

std::unique_ptr<gpud::fault_injecting_backend> injected(const std::string& plan) {
    return std::make_unique<gpud::fault_injecting_backend>(std::make_unique<gpud::cpu_backend>(),
                                                           gpud::parse_fault_plan(plan));
}

// One whole proof through |be|; true when it verifies.
bool proves(gpud::proving_backend& be) {
    const auto& c = mul8();
    auto work = be.prepare(groth16::view_of(c.pa), c.setup.params);
    be.run_kernels(*work);
    auto rng = seeded(9);
    return groth16::verify_proof(c.pvk, be.finish(*work, rng), c.circuit->public_inputs());
}

// The message of the cuda_error that |f| throws; "" when it throws nothing.
template <class F>
std::string cuda_error_of(F&& f) {
    try {
        f();
    } catch (const cuda::cuda_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(GpudFaultInjection, ParsesEachStepScheduleAndTheLostFlag) {
    const auto every = gpud::parse_fault_plan("kernels:every=2");
    EXPECT_EQ(every.step, proving_step::kernels);
    EXPECT_EQ(every.when, fault_plan::schedule::every);
    EXPECT_EQ(every.period, 2u);
    EXPECT_FALSE(every.lost);
    const auto always = gpud::parse_fault_plan("kernels:always");
    EXPECT_EQ(always.when, fault_plan::schedule::always);
    EXPECT_FALSE(always.lost);
    const auto lost = gpud::parse_fault_plan("kernels:once,lost");
    EXPECT_EQ(lost.when, fault_plan::schedule::once);
    EXPECT_TRUE(lost.lost);
    EXPECT_EQ(gpud::parse_fault_plan("prepare:once").step, proving_step::prepare);
    EXPECT_EQ(gpud::parse_fault_plan("tail:every=3,lost").step, proving_step::tail);
    for (const std::string text : {"kernels:every=2", "kernels:always", "kernels:once,lost", "prepare:once",
                                   "tail:every=17,lost", "kernels:once,lost,hold=3000", "kernels:always,hold=1"})
        EXPECT_EQ(gpud::parse_fault_plan(text).text(), text);
    const auto held = gpud::parse_fault_plan("kernels:once,hold=250,lost");
    EXPECT_TRUE(held.lost);
    EXPECT_EQ(held.hold_ms, 250u);
    EXPECT_EQ(held.text(), "kernels:once,lost,hold=250");
    EXPECT_EQ(gpud::parse_fault_plan("kernels:once").hold_ms, 0u);
}

TEST(GpudFaultInjection, MalformedPlansAreRefusedNamingTheVariableTheValueAndTheMistake) {
    const std::vector<std::pair<std::string, std::string>> cases{
        {"kernels", "no ':' between the step and when it fails"},
        {"gpu:always", "step 'gpu' is not prepare, kernels or tail"},
        {":always", "step '' is not prepare, kernels or tail"},
        {"kernels:sometimes", "'sometimes' is not always, once or every=N"},
        {"kernels:", "'' is not always, once or every=N"},
        {"kernels:every=0", "every=N needs a whole number N of at least 1, not '0'"},
        {"kernels:every=", "every=N needs a whole number N of at least 1, not ''"},
        {"kernels:every=two", "every=N needs a whole number N of at least 1, not 'two'"},
        {"kernels:every=2x", "every=N needs a whole number N of at least 1, not '2x'"},
        {"kernels:every=-1", "every=N needs a whole number N of at least 1, not '-1'"},
        {"kernels:once,gone", "'gone' after the ',' is not 'lost' or 'hold=MS' (each at most once)"},
        {"kernels:once,lost,lost", "'lost' after the ',' is not 'lost' or 'hold=MS' (each at most once)"},
        {"kernels:once,lost,", "a ',' with no flag after it"},
        {"kernels:once,", "a ',' with no flag after it"},
        {"kernels:once,hold=0", "hold=MS needs a whole number of milliseconds in 1..600000, not '0'"},
        {"kernels:once,hold=", "hold=MS needs a whole number of milliseconds in 1..600000, not ''"},
        {"kernels:once,hold=1s", "hold=MS needs a whole number of milliseconds in 1..600000, not '1s'"},
        {"kernels:once,hold=600001", "hold=MS needs a whole number of milliseconds in 1..600000, not '600001'"},
        {"kernels:once,hold=5,hold=6", "'hold=6' after the ',' is not 'lost' or 'hold=MS' (each at most once)"},
        {"Kernels:always", "step 'Kernels' is not"},
    };
    for (const auto& [text, mistake] : cases) {
        const auto e = error_of(text);
        EXPECT_NE(e.find("CUZK_GPUD_INJECT_FAULTS='" + text + "': " + mistake), std::string::npos) << text << ": " << e;
        EXPECT_NE(e.find("expected <prepare|kernels|tail>:<always|once|every=N>[,lost][,hold=MS]"), std::string::npos)
            << e;
    }
}

TEST(GpudFaultInjection, SchedulesFailTheCallsTheySay) {
    const auto always = gpud::parse_fault_plan("kernels:always");
    const auto once = gpud::parse_fault_plan("kernels:once");
    const auto every3 = gpud::parse_fault_plan("kernels:every=3");
    for (std::uint64_t n = 1; n <= 9; ++n) {
        EXPECT_TRUE(always.fails(n)) << n;
        EXPECT_EQ(once.fails(n), n == 1) << n;
        EXPECT_EQ(every3.fails(n), n % 3 == 0) << n;
    }
}

TEST(GpudFaultInjection, TheEnvironmentVariableIsThePlanAndUnsetOrEmptyIsNone) {
    ::unsetenv(gpud::fault_injection_variable);
    EXPECT_FALSE(gpud::fault_plan_from_environment().has_value());
    ::setenv(gpud::fault_injection_variable, "", 1);
    EXPECT_FALSE(gpud::fault_plan_from_environment().has_value());
    ::setenv(gpud::fault_injection_variable, "tail:every=4", 1);
    const auto plan = gpud::fault_plan_from_environment();
    ASSERT_TRUE(plan.has_value());
    EXPECT_EQ(plan->text(), "tail:every=4");
    ::setenv(gpud::fault_injection_variable, "tail:every=four", 1);
    EXPECT_THROW((void)gpud::fault_plan_from_environment(), input_error);
    ::unsetenv(gpud::fault_injection_variable);
}

TEST(GpudFaultInjection, TheChosenStepThrowsACudaErrorThatGpudClassifiesAsADeviceFailure) {
    auto be = injected("kernels:every=2");
    EXPECT_EQ(be->name(), "cpu+faults");
    EXPECT_TRUE(proves(*be));  // kernels call 1
    const auto& c = mul8();
    auto work = be->prepare(groth16::view_of(c.pa), c.setup.params);
    std::string text;
    try {
        be->run_kernels(*work);  // call 2
    } catch (const cuda::cuda_error& e) {
        text = e.what();
        const auto f = gpud::classify_failure(e, 0, 1, proving_step::kernels);
        EXPECT_TRUE(f.retryable);
        EXPECT_NE(f.message.find("GPU 0 worker 1 kernels: device failure: kernels call 2 failed"), std::string::npos)
            << f.message;
    }
    EXPECT_EQ(text,
              "kernels call 2 failed (injected by CUZK_GPUD_INJECT_FAULTS=kernels:every=2): cudaErrorMemoryAllocation "
              "(out of memory)");
    EXPECT_EQ(be->injected(), 1u);
    EXPECT_EQ(be->device_lost(), "");  // without ",lost" the device stays usable
    EXPECT_TRUE(proves(*be));          // call 3
    EXPECT_EQ(cuda_error_of([&] { proves(*be); }).find("kernels call 4 failed"), 0u);
}

TEST(GpudFaultInjection, PrepareAndTailPlansFailThoseStepsOnly) {
    auto prepare = injected("prepare:once");
    const auto& c = mul8();
    EXPECT_NE(cuda_error_of([&] { (void)prepare->prepare(groth16::view_of(c.pa), c.setup.params); })
                  .find("prepare call 1 failed"),
              std::string::npos);
    EXPECT_TRUE(proves(*prepare));
    auto tail = injected("tail:always");
    auto work = tail->prepare(groth16::view_of(c.pa), c.setup.params);
    tail->run_kernels(*work);
    auto rng = seeded(1);
    EXPECT_NE(cuda_error_of([&] { (void)tail->finish(*work, rng); }).find("tail call 1 failed"), std::string::npos);
    EXPECT_EQ(tail->injected(), 1u);
}

TEST(GpudFaultInjection, LostPlanReportsTheContextLostAfterItsFirstFault) {
    auto be = injected("kernels:once,lost");
    EXPECT_EQ(be->device_lost(), "");
    const auto text = cuda_error_of([&] { proves(*be); });
    EXPECT_NE(text.find("cudaErrorIllegalAddress (an illegal memory access was encountered)"), std::string::npos)
        << text;
    EXPECT_EQ(be->device_lost(),
              "cudaErrorIllegalAddress (an illegal memory access was encountered) (injected by "
              "CUZK_GPUD_INJECT_FAULTS=kernels:once,lost)");
}

// hold=MS: the first prepare waits that long (its slot held while other workers go on); later ones do not.
TEST(GpudFaultInjection, HoldDelaysTheFirstPrepareOnly) {
    auto be = injected("kernels:every=1000,hold=1500");
    const auto& c = mul8();
    auto timed_prepare = [&] {
        const auto t0 = std::chrono::steady_clock::now();
        (void)be->prepare(groth16::view_of(c.pa), c.setup.params);
        return std::chrono::steady_clock::now() - t0;
    };
    EXPECT_GE(timed_prepare(), std::chrono::milliseconds(1500));
    EXPECT_LT(timed_prepare(), std::chrono::milliseconds(1500));
    EXPECT_TRUE(proves(*be));
    EXPECT_EQ(be->injected(), 0u);
}
