// The exit codes that tell an operator what to do, against real daemons: a full queue is "busy, retry later"
// (5, not 2 like bad input), over the daemons' protocol and over the API; a socket or runtime directory this
// user may not reach is "permission denied" (6) naming the path and the fix, at once, where it used to be a
// 60-second wait ending in "service unavailable" (3) or an "internal error" (4). `cuzk --help` lists every code.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "support/cli_output.hpp"
#include "support/pipeline.hpp"
#include "support/run_command.hpp"

using namespace cuzk;
using cuzk::test::pipeline;
using cuzk::test::run_command;

namespace {

namespace fs = std::filesystem;

// How to run the client as a user without the daemons' permissions. Not root: as ourselves, with the modes
// taken away (the owner is refused too). Root passes every permission check, so it runs the client as
// "nobody" through setpriv; empty when that is impossible here.
std::string unprivileged_prefix() {
    if (::geteuid() != 0) return " ";
    if (run_command("command -v setpriv").exit_code != 0) return "";
    if (run_command("id -u nobody").exit_code != 0) return "";
    return "setpriv --reuid=nobody --regid=nogroup --clear-groups ";
}

}  // namespace

TEST(PipelineCliExitCodes, HelpListsEveryExitCode) {
    const auto help = test::run_cuzk("--help");
    EXPECT_EQ(help.exit_code, 0) << help.output;
    for (const char* line : {"  3  service unavailable", "  4  internal error", "  5  service busy",
                             "  6  permission denied"})
        EXPECT_TRUE(test::output_contains(help, line)) << line << "\n" << help.output;
}

TEST(PipelineCliExitCodes, AFullQueueExitsBusy) {
    pipeline sut({.max_pending_jobs = 2});
    sut.start("assemblerd");  // nothing proves: the jobs stay pending
    sut.submit_ok("mul:64", 1, 1);
    sut.submit_ok("mul:64", 1, 2);
    const std::string cfg = "--config " + sut.config_path().string();

    const auto submit = test::run_cuzk("submit " + cfg + " --circuit mul:64 --partitions 1 --seed 3");
    EXPECT_EQ(submit.exit_code, 5) << submit.output;
    EXPECT_TRUE(test::output_contains(submit, "cuzk: service busy: 2 jobs pending ([assemblerd] max_pending_jobs = 2); "
                                              "retry later"))
        << submit.output;

    // The API's RESOURCE_EXHAUSTED is the same answer.
    const auto api = test::run_cuzk("api submit " + cfg + " --circuit mul:64 --partitions 1 --seed 4");
    EXPECT_EQ(api.exit_code, 5) << api.output;
    EXPECT_TRUE(test::output_contains(api, "service busy")) << api.output;

    // Bad input stays 2.
    const auto bad = test::run_cuzk("submit " + cfg + " --circuit nope:1 --partitions 1");
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

TEST(PipelineCliExitCodes, ASocketThisUserMayNotReachExitsPermissionDeniedNamingIt) {
    const std::string as_other = unprivileged_prefix();
    if (as_other.empty())
        GTEST_SKIP() << "running as root, which passes every permission check, and there is no setpriv or no user "
                        "'nobody' to run the client as another user";
    pipeline sut;
    sut.start("assemblerd");
    const fs::path rt = sut.config().runtime.dir;
    const fs::path socket = rt / "assemblerd.sock";
    // The client as the other user reads its config and runs its own copy of the binary: the test directory and
    // the build tree might not be reachable by it.
    const fs::path cli = sut.dir() / "cuzk";
    fs::copy_file(CUZK_CLI_PATH, cli);
    fs::permissions(sut.dir(), fs::perms::all & ~fs::perms::group_write & ~fs::perms::others_write);
    fs::permissions(cli, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                             fs::perms::others_read | fs::perms::others_exec);
    fs::permissions(sut.config_path(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                                           fs::perms::others_read);
    const std::string client = as_other + cli.string() + " ";
    const std::string cfg = " --config " + sut.config_path().string();
    const bool root = ::geteuid() == 0;

    // The runtime directory lets everyone in; the socket is its owner's alone (as the units make the stages'
    // sockets), or nobody's when the test is not root (its owner would be let in).
    fs::permissions(rt, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                            fs::perms::others_read | fs::perms::others_exec);
    if (!root) fs::permissions(socket, fs::perms::none);
    const auto t0 = std::chrono::steady_clock::now();
    const auto submit = run_command(client + "submit" + cfg + " --circuit mul:64 --partitions 1");
    const auto took = std::chrono::steady_clock::now() - t0;
    EXPECT_EQ(submit.exit_code, 6) << submit.output;
    EXPECT_TRUE(test::output_contains(submit, "cuzk: permission denied: " + socket.string() + ": the socket " +
                                                  socket.string() + " is user "))
        << submit.output;
    EXPECT_TRUE(test::output_contains(submit, "connecting to it needs write permission (w)")) << submit.output;
    EXPECT_TRUE(test::output_contains(submit, root ? "sudo -u root cuzk" : "chmod u+w " + socket.string()))
        << submit.output;
    EXPECT_LT(took, std::chrono::seconds(10)) << "said at once, not after the request's timeout";

    // The runtime directory closed to the others (0750, as systemd makes it; 0 when not root): named, with the
    // group to join, by `cuzk status` too.
    fs::permissions(rt, root ? fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec
                             : fs::perms::none);
    const auto status = run_command(client + "status" + cfg);
    fs::permissions(rt, fs::perms::owner_all);
    fs::permissions(socket, fs::perms::owner_read | fs::perms::owner_write);
    EXPECT_EQ(status.exit_code, 6) << status.output;
    EXPECT_TRUE(test::output_contains(status, "the directory " + rt.string() + " is user ")) << status.output;
    EXPECT_TRUE(test::output_contains(status, "needs search permission (x)")) << status.output;
    if (root) {
        EXPECT_TRUE(test::output_contains(status, "Members of group root have it: add user nobody to the group"))
            << status.output;
    }

    // With the modes back, the same user's request goes through.
    if (!root) {
        EXPECT_EQ(run_command(client + "status --json" + cfg).exit_code, 0);
    }
}
