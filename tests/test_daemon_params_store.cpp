// The parameters store: a test circuit without files gets one generated pair, loaded again by a later
// store; processes that miss the same pair at once (the gpuds of several GPUs) end with the same key, the one
// on disk; PoRep parameters are found under the published name first, then the test name, and a missing set is
// an error naming both; one copy per file whatever the registered proof; evict, loaded() and the free hook.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>
#include <iterator>
#include <optional>
#include <vector>

#include "common/circuits/registry.hpp"
#include "common/groth16/params_file.hpp"
#include "common/groth16/setup.hpp"
#include "common/r1cs/matrix_file.hpp"
#include "common/r1cs/matrix_recorder.hpp"
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

// The published name of the 2 KiB set (filecoin-porep.md), under which a test circuit's parameters stand in
// for the real ones: the store checks where files are, not what they prove.
const std::string official_2kib =
    "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
    "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f";

groth16::parameters small_parameters(const std::string& spec) {
    return groth16::generate_random_parameters(*circuits::make_circuit(spec)).params;
}

void write_pair(const fs::path& stem, const groth16::parameters& p) {
    groth16::write_parameters(fs::path(stem.string() + ".params"), p);
    groth16::write_vk(fs::path(stem.string() + ".vk"), p.vk);
}

// A test circuit's set standing in for a PoRep one: its parameters, and its matrices labelled as those of the
// PoRep circuit that first loads it (the store would otherwise record the PoRep matrices, which do not fit them).
groth16::parameters write_stand_in(const fs::path& stem, const std::string& spec, const std::string& porep) {
    auto p = small_parameters(spec);
    write_pair(stem, p);
    r1cs::write_matrix_file(fs::path(stem.string() + ".r1cs"), r1cs::record_matrices(*circuits::make_circuit(spec)),
                            porep);
    return p;
}

}  // namespace

TEST_F(ParamsStore, GeneratesAMissingTestPairOnceAndLoadsItAfterwards) {
    daemon::params_store sut(dir_);
    const auto first = sut.get("mul:64@3").params;
    EXPECT_EQ(sut.get("mul:64@9").params, first);  // one shape, one resident copy whatever the seed
    ASSERT_TRUE(fs::exists(daemon::params_path(dir_, "mul:64")));
    EXPECT_EQ(groth16::vk_to_bytes(groth16::read_vk(daemon::vk_path(dir_, "mul:64"))), vk_bytes(*first));
    daemon::params_store later(dir_);
    EXPECT_EQ(vk_bytes(*later.get("mul:64").params), vk_bytes(*first));
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
                groth16::write_vk(dir_ / fmt::format("child{}.vk.out", i), store.get(shape).params->vk);
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

TEST_F(ParamsStore, AMissingPorepSetIsAnErrorNamingThePublishedAndTheTestFile) {
    daemon::params_store sut(dir_);
    try {
        (void)sut.get("porep:StackedDrg2KiBV1_1");
        FAIL() << "PoRep parameters were made up";
    } catch (const input_error& e) {
        const std::string text = e.what();
        EXPECT_NE(text.find(official_2kib + ".params"), std::string::npos) << text;
        EXPECT_NE(text.find("porep_StackedDrg2KiBV1_1.params"), std::string::npos) << text;
    }
    EXPECT_FALSE(fs::exists(daemon::params_path(dir_, "porep:StackedDrg2KiBV1_1")));
    EXPECT_TRUE(sut.loaded().empty());
}

TEST_F(ParamsStore, ThePublishedNameIsFoundFirst) {
    fs::create_directories(dir_);
    const auto published = write_stand_in(dir_ / official_2kib, "mul:8", "porep:StackedDrg2KiBV1_1");
    write_stand_in(dir_ / "porep_StackedDrg2KiBV1_1", "mul:16", "porep:StackedDrg2KiBV1_1");
    const auto files = daemon::resolve_params_files(dir_, "porep:StackedDrg2KiBV1_1@7");
    EXPECT_EQ(files.params, dir_ / (official_2kib + ".params"));
    EXPECT_EQ(files.vk, dir_ / (official_2kib + ".vk"));
    daemon::params_store sut(dir_);
    EXPECT_EQ(*sut.get("porep:StackedDrg2KiBV1_1").params, published);
    // Every sector size has its published stem, with the tree shape in it.
    EXPECT_EQ(daemon::official_params_files(dir_, "porep:StackedDrg32GiBV1").params.filename().string(),
              "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
              "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params");
    const auto synthetic_64 = daemon::official_params_files(dir_, "porep:StackedDrg64GiBV1_1_Feat_SyntheticPoRep");
    EXPECT_EQ(synthetic_64.vk.filename().string(),
              "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
              "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk");
    EXPECT_TRUE(daemon::official_params_files(dir_, "mul:8").params.empty());
    EXPECT_THROW((void)daemon::official_params_files(dir_, "porep:StackedDrg3KiBV1"), input_error);
}

TEST_F(ParamsStore, TheTestNameIsStillAccepted) {
    fs::create_directories(dir_);
    const auto test = write_stand_in(dir_ / "porep_StackedDrg2KiBV1", "mul:16", "porep:StackedDrg2KiBV1");
    EXPECT_EQ(daemon::resolve_params_files(dir_, "porep:StackedDrg2KiBV1").vk, dir_ / "porep_StackedDrg2KiBV1.vk");
    daemon::params_store sut(dir_);
    const auto got = sut.get("porep:StackedDrg2KiBV1");
    EXPECT_EQ(*got.params, test);
    EXPECT_FALSE(got.was_loaded);
    EXPECT_TRUE(sut.get("porep:StackedDrg2KiBV1").was_loaded);
}

TEST_F(ParamsStore, V1AndV1_1ShareOneLoadOfThePublishedFile) {
    fs::create_directories(dir_);
    write_stand_in(dir_ / official_2kib, "mul:8", "porep:StackedDrg2KiBV1");
    daemon::params_store sut(dir_);
    const auto v1 = sut.get("porep:StackedDrg2KiBV1");
    // Resident: served without a look at the directory.
    fs::remove(dir_ / (official_2kib + ".params"));
    const auto v1_1 = sut.get("porep:StackedDrg2KiBV1_1");
    const auto synthetic = sut.get("porep:StackedDrg2KiBV1_1_Feat_SyntheticPoRep");
    EXPECT_FALSE(v1.was_loaded);
    EXPECT_TRUE(v1_1.was_loaded);
    EXPECT_EQ(v1_1.load_us, 0u);
    EXPECT_EQ(v1_1.params, v1.params);
    EXPECT_EQ(synthetic.params, v1.params);
    ASSERT_EQ(sut.loaded().size(), 1u);
    EXPECT_EQ(sut.loaded()[0].circuit, "porep:StackedDrg2KiBV1");
    EXPECT_EQ(sut.loaded()[0].file, dir_ / (official_2kib + ".params"));
    // Evicted under either name: it is one set.
    EXPECT_TRUE(sut.evict("porep:StackedDrg2KiBV1_1").was_loaded);
    EXPECT_TRUE(sut.loaded().empty());
}

TEST_F(ParamsStore, EvictLetsGoAndTheNextGetLoadsAgain) {
    std::vector<std::uint64_t> freed;
    daemon::params_store sut(dir_, [&](const groth16::parameters& p) { freed.push_back(daemon::params_bytes(p)); });
    auto first = sut.get("mul:64");
    EXPECT_FALSE(first.was_loaded);
    auto listed = sut.loaded();
    ASSERT_EQ(listed.size(), 1u);
    EXPECT_EQ(listed[0].circuit, "mul:64");
    EXPECT_EQ(listed[0].file, daemon::params_path(dir_, "mul:64"));
    EXPECT_GT(listed[0].bytes, 0u);
    EXPECT_EQ(listed[0].bytes, daemon::params_bytes(*first.params));
    EXPECT_EQ(listed[0].users, 1u);  // |first|
    {
        const auto second = sut.get("mul:64@2");
        EXPECT_EQ(sut.loaded()[0].users, 2u);
    }
    EXPECT_EQ(sut.loaded()[0].users, 1u);

    auto evicted = sut.evict("mul:64");
    EXPECT_TRUE(evicted.was_loaded);
    EXPECT_EQ(evicted.freed_bytes, listed[0].bytes);
    EXPECT_TRUE(sut.loaded().empty());
    EXPECT_FALSE(sut.evict("mul:64").was_loaded);  // gone from the store already
    evicted.released.reset();
    EXPECT_TRUE(freed.empty()) << "freed while a user still proves with it";
    first.params.reset();
    ASSERT_EQ(freed.size(), 1u);  // the last user let go
    EXPECT_EQ(freed[0], listed[0].bytes);

    const auto again = sut.get("mul:64");
    EXPECT_FALSE(again.was_loaded);  // loaded again, from the file written the first time
    EXPECT_NE(again.params, nullptr);
    EXPECT_EQ(sut.loaded().size(), 1u);
}

TEST_F(ParamsStore, EvictOfWhatNamesNoCircuitIsAnError) {
    daemon::params_store sut(dir_);
    EXPECT_THROW((void)sut.evict("nope:3"), input_error);
    EXPECT_THROW((void)sut.evict("porep:StackedDrg3KiBV1"), input_error);
    EXPECT_FALSE(sut.evict("porep:StackedDrg2KiBV1").was_loaded);
    EXPECT_THROW((void)sut.get("nope:3"), input_error);
}

TEST_F(ParamsStore, ALoadRunsOutsideTheLockAndCallersOfTheSameSetWaitForIt) {
    daemon::params_store sut(dir_);
    const std::string shape = "mul:8192";  // about 0.2 s of setup here
    std::atomic<bool> done{false};
    daemon::params_store::lookup first, second;
    std::thread loader([&] {
        first = sut.get(shape);
        done = true;
    });
    // The generation's lock file appears once the load is under way, outside the store's lock.
    ASSERT_TRUE([&] {
        for (int i = 0; i < 2000 && !fs::exists(dir_ / "mul_8192.lock"); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return fs::exists(dir_ / "mul_8192.lock");
    }());
    EXPECT_TRUE(sut.loaded().empty());  // answered while the set loads
    EXPECT_EQ(sut.loading(), std::vector<std::string>{shape});
    EXPECT_FALSE(done.load()) << "the load ended before loaded() was asked: make the circuit larger";
    second = sut.get(shape + "@2");  // waits for the same load
    loader.join();
    EXPECT_EQ(second.params, first.params);
    EXPECT_FALSE(first.was_loaded);
    EXPECT_FALSE(second.was_loaded);
    EXPECT_GT(second.load_us, 0u);
    ASSERT_EQ(sut.loaded().size(), 1u);
    EXPECT_TRUE(sut.loading().empty());
}

// A parameter file replaced while its set is resident is read again at the next get (the partitions in flight
// keep the old copy); an untouched file is not (issue: "after gpud once loaded a wrong .params, every later job
// of that shape fails even after the file is fixed").
TEST_F(ParamsStore, AFileReplacedSinceItWasLoadedIsLoadedAgain) {
    fs::create_directories(dir_);
    const auto stem = dir_ / "porep_StackedDrg2KiBV1_1";
    write_stand_in(stem, "mul:32", "porep:StackedDrg2KiBV1_1");  // the "wrong" set: another circuit's keys
    daemon::params_store sut(dir_);
    const auto wrong = sut.get("porep:StackedDrg2KiBV1_1").params;
    EXPECT_TRUE(sut.get("porep:StackedDrg2KiBV1_1").was_loaded);
    EXPECT_EQ(sut.get("porep:StackedDrg2KiBV1_1").params, wrong);

    // The operator puts the right file in place (a rename), and the matrices that fit it.
    const auto fixed = write_stand_in(fs::path(stem.string() + ".new"), "mul:64", "porep:StackedDrg2KiBV1_1");
    fs::rename(stem.string() + ".new.r1cs", stem.string() + ".r1cs");
    fs::rename(stem.string() + ".new.params", stem.string() + ".params");
    const auto again = sut.get("porep:StackedDrg2KiBV1_1");
    EXPECT_FALSE(again.was_loaded);
    EXPECT_NE(again.params, wrong);
    EXPECT_EQ(vk_bytes(*again.params), vk_bytes(fixed));
    EXPECT_NE(vk_bytes(*wrong), vk_bytes(fixed));  // the old copy lives on, unchanged, with whoever holds it
    EXPECT_TRUE(sut.get("porep:StackedDrg2KiBV1_1").was_loaded);
}

namespace {

// The sizes prepare_partition checks, from the matrices as synthd's witness would give them.
void expect_sizes_of_a_setup(const groth16::parameters& p, const r1cs::r1cs_matrices& m) {
    auto bits = [](const std::vector<std::uint64_t>& words) {
        std::uint64_t n = 0;
        for (auto w : words) n += static_cast<std::uint64_t>(std::popcount(w));
        return n;
    };
    std::uint64_t domain = 1;
    while (domain < m.prover_rows()) domain *= 2;
    EXPECT_EQ(p.vk.ic.size(), m.num_inputs);
    EXPECT_EQ(p.h.size(), domain - 1);
    EXPECT_EQ(p.l.size(), m.num_aux);
    EXPECT_EQ(p.a.size(), m.num_inputs + bits(m.a_aux_density));
    EXPECT_EQ(p.b_g1.size(), bits(m.b_input_density) + bits(m.b_aux_density));
    EXPECT_EQ(p.b_g2.size(), p.b_g1.size());
}

void expect_no_params_or_vk_written(const fs::path& dir) {
    for (const auto& e : fs::directory_iterator(dir)) {
        const auto ext = e.path().extension();
        EXPECT_TRUE(ext != ".params" && ext != ".vk") << e.path() << " written";
    }
}

}  // namespace

// The test facility: a PoRep set without its .params gets synthetic parameters of the exact sizes, sized from the
// circuit's recorded matrices (kept beside, under the published name); nothing else is written, no .vk either.
TEST_F(ParamsStore, SyntheticParametersStandInForAMissingPorepSetInMemoryOnly) {
    daemon::params_store sut(dir_, {}, daemon::params_store::missing_official::synthetic);
    const auto got = sut.get("porep:StackedDrg2KiBV1_1@3");
    ASSERT_NE(got.params, nullptr);
    ASSERT_NE(got.matrices, nullptr);
    expect_sizes_of_a_setup(*got.params, *got.matrices);
    ASSERT_EQ(sut.loaded().size(), 1u);
    EXPECT_TRUE(sut.loaded()[0].synthetic);
    EXPECT_EQ(sut.loaded()[0].file, dir_ / (official_2kib + ".params"));
    EXPECT_TRUE(sut.get("porep:StackedDrg2KiBV1_1").was_loaded);
    EXPECT_TRUE(fs::exists(dir_ / (official_2kib + ".r1cs")));
    expect_no_params_or_vk_written(dir_);
}

// The same for a PoSt set (timing a 32 GiB WindowPoSt on a GPU machine without its 47 GB file).
TEST_F(ParamsStore, SyntheticParametersStandInForAMissingPostSetInMemoryOnly) {
    daemon::params_store sut(dir_, {}, daemon::params_store::missing_official::synthetic);
    const std::string shape = "post:StackedDrgWinning2KiBV1";
    const auto official = daemon::official_params_files(dir_, shape);
    const auto got = sut.get(shape);
    ASSERT_NE(got.params, nullptr);
    ASSERT_NE(got.matrices, nullptr);
    expect_sizes_of_a_setup(*got.params, *got.matrices);
    ASSERT_EQ(sut.loaded().size(), 1u);
    EXPECT_TRUE(sut.loaded()[0].synthetic);
    EXPECT_EQ(sut.loaded()[0].file, official.params);
    EXPECT_TRUE(fs::exists(fs::path(official.params).replace_extension(".r1cs")));
    expect_no_params_or_vk_written(dir_);
}

// Real files win over the facility, and test circuits still get a generated (valid) pair.
TEST_F(ParamsStore, SyntheticParametersOnlyWhereThePorepFileIsMissing) {
    fs::create_directories(dir_);
    const auto real = write_stand_in(dir_ / "porep_StackedDrg2KiBV1", "mul:16", "porep:StackedDrg2KiBV1");
    daemon::params_store sut(dir_, {}, daemon::params_store::missing_official::synthetic);
    EXPECT_EQ(*sut.get("porep:StackedDrg2KiBV1").params, real);
    EXPECT_NE(sut.get("mul:64").params, nullptr);
    EXPECT_TRUE(fs::exists(daemon::params_path(dir_, "mul:64")));
    for (const auto& set : sut.loaded()) EXPECT_FALSE(set.synthetic) << set.circuit;
}

// A set the host's available memory cannot hold (HOST_MEMORY_RESERVE left over) is refused before it is read,
// naming the set, the file and both sizes; the store stays usable, and where the available memory is unknown
// the read is tried.
TEST_F(ParamsStore, ASetTheHostHasNoRoomForIsRefusedBeforeItIsRead) {
    { daemon::params_store(dir_).get("mul:64"); }  // the pair, generated once
    daemon::params_store sut(dir_);
    sut.set_memory_probe([] { return std::optional<std::uint64_t>(std::uint64_t(1) << 20); });
    try {
        sut.get("mul:64");
        FAIL() << "a set larger than the available memory was read";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("parameters for mul:64"), std::string::npos) << what;
        EXPECT_NE(what.find(daemon::params_path(dir_, "mul:64").string()), std::string::npos) << what;
        EXPECT_NE(what.find("reading the file takes"), std::string::npos) << what;
        EXPECT_NE(what.find("GB is available"), std::string::npos) << what;
    }
    EXPECT_TRUE(sut.loaded().empty());
    sut.set_memory_probe([] { return std::optional<std::uint64_t>(); });
    EXPECT_NE(sut.get("mul:64").params, nullptr);
    EXPECT_EQ(sut.loaded().size(), 1u);
}

// The same before synthetic parameters are built (the test facility builds 51 GB at 32 GiB).
TEST_F(ParamsStore, SyntheticParametersTheHostHasNoRoomForAreNotBuilt) {
    daemon::params_store sut(dir_, {}, daemon::params_store::missing_official::synthetic);
    sut.set_memory_probe([] { return std::optional<std::uint64_t>(std::uint64_t(3) << 30); });  // 3 GiB: 1 over the reserve
    EXPECT_NO_THROW(sut.get("post:StackedDrgWinning2KiBV1"));  // ~30 MB of points fit
    daemon::params_store tight(dir_, {}, daemon::params_store::missing_official::synthetic);
    tight.set_memory_probe([] { return std::optional<std::uint64_t>(std::uint64_t(2) << 30); });  // the reserve alone
    try {
        tight.get("post:StackedDrgWinning2KiBV1");
        FAIL() << "synthetic parameters were built without room for them";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("building its synthetic points takes"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(tight.loaded().empty());
}

// A stopping gpud abandons its loads: a load under way throws abandoned_error (here asked while the load checks the
// host's room, before it reads the file), nothing half loaded is kept, a later load is refused naming the set, and a
// resident set is still handed out (a partition proving with it finishes).
TEST_F(ParamsStore, AbandonedLoadsStopTheLoadUnderWayAndRefuseLaterOnesButNotResidentSets) {
    {
        daemon::params_store writer(dir_);  // the pairs, generated once
        writer.get("mul:64");
        writer.get("mul:128");
    }
    daemon::params_store sut(dir_);
    EXPECT_NE(sut.get("mul:64").params, nullptr);
    sut.set_memory_probe([&] {
        sut.abandon_loads();
        return std::optional<std::uint64_t>();
    });
    try {
        sut.get("mul:128");
        FAIL() << "the load went on after abandon_loads";
    } catch (const abandoned_error& e) {
        EXPECT_NE(std::string(e.what()).find(daemon::params_path(dir_, "mul:128").string()), std::string::npos)
            << e.what();
    }
    EXPECT_TRUE(sut.loading().empty());
    ASSERT_EQ(sut.loaded().size(), 1u);
    EXPECT_EQ(sut.loaded()[0].circuit, "mul:64");
    try {
        sut.get("mul:128");
        FAIL() << "a load started after abandon_loads";
    } catch (const abandoned_error& e) {
        EXPECT_STREQ(e.what(), "parameters for mul:128: not loaded, the process is stopping");
    }
    EXPECT_TRUE(sut.get("mul:64").was_loaded);
}

// A caller waiting for another's load leaves when the loads are abandoned, without waiting for that load to end
// (a test circuit's generation, which does not stop: the loader ends with abandoned_error after it).
TEST_F(ParamsStore, ACallerWaitingForALoadLeavesWhenTheLoadsAreAbandoned) {
    daemon::params_store sut(dir_);
    const std::string shape = "mul:32768";  // seconds of setup here
    std::optional<std::string> loader_error, waiter_error;
    auto get_noting = [&](const std::string& spec, std::optional<std::string>& error) {
        try {
            sut.get(spec);
        } catch (const abandoned_error& e) {
            error = e.what();
        }
    };
    std::thread loader([&] { get_noting(shape, loader_error); });
    ASSERT_TRUE([&] {
        for (int i = 0; i < 2000 && sut.loading().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
        return !sut.loading().empty();
    }());
    std::thread waiter([&] { get_noting(shape + "@2", waiter_error); });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sut.abandon_loads();
    waiter.join();
    EXPECT_EQ(waiter_error, std::optional<std::string>("parameters for " + shape +
                                                      ": not loaded, the process is stopping"));
    EXPECT_FALSE(sut.loading().empty()) << "the generation ended before the waiter left: make the circuit larger";
    loader.join();
    EXPECT_TRUE(loader_error.has_value());
    EXPECT_TRUE(sut.loading().empty());
    EXPECT_TRUE(sut.loaded().empty());
}
