// A CUDA lock segment left by an older build (another layout version: an upgrade) no longer stops gpud until it
// is removed by hand: gpud rebuilds it, with a warning, when no live process uses it, and proves; while another
// gpud uses it, the second is refused naming that process.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstring>
#include <fstream>

#include "ipc/shm_header.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;

namespace {

// A segment as a build with lock layout version 2 left it: its magic, an older version, a 128-byte header.
void write_old_lock(const std::filesystem::path& path) {
    std::vector<char> bytes(4096, 0);
    const auto magic = ipc::cuda_lock::magic;
    const std::uint32_t version = 2, header_bytes = 128;
    std::memcpy(bytes.data(), &magic, 8);
    std::memcpy(bytes.data() + 8, &version, 4);
    std::memcpy(bytes.data() + 12, &header_bytes, 4);
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST(PipelineCudaLockSetup, ALockOfAnOlderLayoutIsRebuiltWhenUnused) {
    pipeline sut({.gpud_backend = "cpu"});
    const auto path = std::filesystem::path("/dev/shm") / sut.lock_name_of(0);
    write_old_lock(path);
    sut.start_all();
    EXPECT_NE(sut.log_of("gpud").find("no process uses it: rebuilt"), std::string::npos) << sut.log_of("gpud");
    const auto id = sut.submit_ok("mul:64", 2, 1);
    sut.expect_valid(sut.await(id), "mul:64", 2, 1);
}

TEST(PipelineCudaLockSetup, ALockOfAnOlderLayoutInUseIsRefusedNamingItsUser) {
    pipeline sut({.gpud_backend = "cpu"});
    const auto path = std::filesystem::path("/dev/shm") / sut.lock_name_of(0);
    write_old_lock(path);
    // This process stands for a live user of the old lock: it holds the shared flock every user holds.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::flock(fd, LOCK_SH), 0);
    const auto r = test::run_command(
        fmt::format("timeout 20 {} --config {}", pipeline::binary("gpud"), sut.config_path().string()));
    ::close(fd);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(fmt::format("still in use by pid {}", ::getpid())), std::string::npos) << r.output;
    EXPECT_TRUE(std::filesystem::exists(path));
    // Released, the next start rebuilds it.
    sut.start_all();
    const auto id = sut.submit_ok("mul:64", 1, 2);
    sut.expect_valid(sut.await(id), "mul:64", 1, 2);
}
