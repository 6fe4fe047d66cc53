// The access model, tried with real other users (the daemons running, CPU backend): clients talk only to the
// front door (assemblerd's request socket and the gRPC socket, the service group's: 0660 in a 0750 runtime
// directory); the sockets between the stages and the shared-memory segments are the service user's alone; a job's
// input travels in the request, so the service reads no file a client names; and no TCP port is open by default.
// A member of the service's group submits and fetches its own job with `cuzk` (its files 0600, unreadable by the
// service user's group); a user outside the group reaches nothing. The other users are made by switching this
// test's children to uid/gid 65534 (nobody), with and without the service's group: that needs root.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <grp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/groth16/proof.hpp"
#include "support/pipeline.hpp"

using namespace cuzk;
using cuzk::test::pipeline;
namespace fs = std::filesystem;

namespace {

constexpr uid_t other_uid = 65534;
constexpr gid_t other_gid = 65534;

// Runs |body| in a child switched to |uid|/|gid| with |groups| as its only supplementary groups; its result is the
// child's exit status (-1: the child did not exit normally).
int as_user(uid_t uid, gid_t gid, const std::vector<gid_t>& groups, const std::function<int()>& body) {
    const pid_t pid = ::fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (::setgroups(groups.size(), groups.data()) != 0 || ::setresgid(gid, gid, gid) != 0 ||
            ::setresuid(uid, uid, uid) != 0)
            ::_exit(120);
        ::_exit(body());
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// 0 when a stream connection to the Unix socket at |path| is accepted, else its errno.
int connect_errno(const fs::path& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof a.sun_path - 1);
    const int rc = ::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof a);
    const int e = rc == 0 ? 0 : errno;
    ::close(fd);
    return e;
}

int open_errno(const fs::path& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) ::close(fd);
    return fd >= 0 ? 0 : errno;
}

// Runs the cuzk CLI in the current (switched) process; its exit status, its output in |log|.
int cuzk_cli(const std::string& args, const fs::path& log) {
    return WEXITSTATUS(std::system(fmt::format("{} {} > {} 2>&1", CUZK_CLI_PATH, args, log.string()).c_str()));
}

std::string read_text(const fs::path& p) {
    std::ifstream in(p);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// The inodes of the TCP sockets listening on this host (IPv4 and IPv6).
std::set<std::string> listening_tcp_inodes() {
    std::set<std::string> inodes;
    for (const auto* table : {"/proc/net/tcp", "/proc/net/tcp6"}) {
        std::ifstream in(table);
        std::string line;
        std::getline(in, line);  // header
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string sl, local, remote, state, queues, timer, retr, uid, timeout, inode;
            fields >> sl >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >> inode;
            if (state == "0A") inodes.insert(inode);  // TCP_LISTEN
        }
    }
    return inodes;
}

class PipelineAccessModel : public ::testing::Test {
protected:
    void SetUp() override {
        if (::geteuid() != 0) GTEST_SKIP() << "needs root: the test runs its clients as other users (setresuid)";
        sut_.emplace(test::pipeline_options{.gpud_backend = "cpu"});
        sut_->start_all();
        rt_ = sut_->dir() / "rt";
        // The runtime directory's group is the service's group (the daemons' own gid here).
        struct stat st{};
        ASSERT_EQ(::stat(rt_.c_str(), &st), 0);
        service_gid_ = st.st_gid;
        // The client's scratch directory: its own, out of the service user's group.
        client_dir_ = sut_->dir() / "client";
        fs::create_directories(client_dir_);
        ASSERT_EQ(::chown(client_dir_.c_str(), other_uid, other_gid), 0);
        ASSERT_EQ(::chmod(client_dir_.c_str(), 0700), 0);
        // Every user may read the configuration and reach the pipeline's directory (not the runtime directory).
        fs::permissions(sut_->dir(), fs::perms::others_exec | fs::perms::group_exec, fs::perm_options::add);
        fs::permissions(sut_->config_path(), fs::perms::others_read | fs::perms::group_read, fs::perm_options::add);
    }

    std::optional<pipeline> sut_;
    fs::path rt_, client_dir_;
    gid_t service_gid_ = 0;
};

}  // namespace

TEST_F(PipelineAccessModel, AUserOutsideTheGroupReachesNothing) {
    const auto ring = sut_->open_ring().location().backing_path();
    const auto code = as_user(other_uid, other_gid, {}, [&] {
        int failures = 0;
        for (const auto* name : {"assemblerd.sock", "assemblerd-results.sock", "synthd.sock", "gpud-0.sock", "cuzk.sock"})
            failures += connect_errno(rt_ / name) == EACCES ? 0 : 1;
        failures += open_errno(ring) == EACCES ? 0 : 1;
        return failures;
    });
    EXPECT_EQ(code, 0) << "sockets or the ring reachable from outside the group";
    // The client says why, naming the socket.
    const auto log = client_dir_ / "status.log";
    const auto status = as_user(other_uid, other_gid, {}, [&] {
        return cuzk_cli(fmt::format("status --config {}", sut_->config_path().string()), log);
    });
    EXPECT_NE(status, 0);
    const auto text = read_text(log);
    EXPECT_NE(text.find("ermission denied"), std::string::npos) << text;
    EXPECT_NE(text.find(rt_.string()), std::string::npos) << text;
}

TEST_F(PipelineAccessModel, AGroupMemberSubmitsAndFetchesItsJobButReachesNoStage) {
    const auto ring = sut_->open_ring().location().backing_path();
    const auto lock = fs::path("/dev/shm") / sut_->lock_name_of(0);
    const std::vector<gid_t> member{service_gid_};
    const auto inside = as_user(other_uid, other_gid, member, [&] {
        int failures = 0;
        failures += connect_errno(rt_ / "assemblerd.sock") == 0 ? 0 : 1;
        failures += connect_errno(rt_ / "cuzk.sock") == 0 ? 0 : 1;
        for (const auto* name : {"assemblerd-results.sock", "synthd.sock", "gpud-0.sock"})
            failures += connect_errno(rt_ / name) == EACCES ? 0 : 10;
        failures += open_errno(ring) == EACCES ? 0 : 100;
        failures += open_errno(lock) == EACCES ? 0 : 100;
        return failures;
    });
    EXPECT_EQ(inside, 0) << "1: the front door refused the group; 10: a stage's socket open to it; 100: a segment";

    // A test job through `cuzk submit`, its result through `cuzk await --out` into the client's own directory.
    const auto submit_log = client_dir_ / "submit.log";
    ASSERT_EQ(as_user(other_uid, other_gid, member, [&] {
        return cuzk_cli(fmt::format("submit --circuit mul:64 --partitions 2 --seed 11 --config {}",
                                    sut_->config_path().string()),
                        submit_log);
    }),
              0)
        << read_text(submit_log);
    const auto id = std::stoull(read_text(submit_log).substr(read_text(submit_log).find_first_of("0123456789")));
    const auto await_log = client_dir_ / "await.log";
    const auto proof = client_dir_ / "job.proof";
    ASSERT_EQ(as_user(other_uid, other_gid, member, [&] {
        return cuzk_cli(fmt::format("await {} --out {} --config {}", id, proof.string(), sut_->config_path().string()),
                        await_log);
    }),
              0)
        << read_text(await_log);
    sut_->expect_valid(sut_->await(id), "mul:64", 2, 11);

    // A C1 file only its owner can read is submitted all the same: its bytes travel in the request.
    const auto c1 = client_dir_ / "c1.json";
    std::ofstream(c1) << "{\"registered_proof\": 12}";
    ASSERT_EQ(::chown(c1.c_str(), other_uid, other_gid), 0);
    ASSERT_EQ(::chmod(c1.c_str(), 0600), 0);
    const auto c1_log = client_dir_ / "c1.log";
    const auto refused = as_user(other_uid, other_gid, member, [&] {
        return cuzk_cli(fmt::format("submit --c1 {} --config {}", c1.string(), sut_->config_path().string()), c1_log);
    });
    EXPECT_EQ(refused, 2) << read_text(c1_log);
    // Refused for what it says, naming the client's file, not for a file the service could not open.
    EXPECT_NE(read_text(c1_log).find(c1.string()), std::string::npos) << read_text(c1_log);
    EXPECT_EQ(read_text(c1_log).find("does not exist"), std::string::npos) << read_text(c1_log);
}

// Jobs are their submitters': another member of the group can neither fetch, await nor cancel a member's job,
// nor get it back by sending the same request id, nor see it in `cuzk status`; the service's own user (here root,
// the test itself) acts on every job, and the member fetches its own.
TEST_F(PipelineAccessModel, AGroupMemberCannotReachAnotherMembersJob) {
    constexpr uid_t second_uid = 65533;
    const std::vector<gid_t> member{service_gid_};
    const auto second_dir = sut_->dir() / "client2";
    fs::create_directories(second_dir);
    ASSERT_EQ(::chown(second_dir.c_str(), second_uid, other_gid), 0);
    const auto config = sut_->config_path().string();
    const auto submit_log = client_dir_ / "submit.log";
    ASSERT_EQ(as_user(other_uid, other_gid, member, [&] {
        return cuzk_cli(fmt::format("submit --circuit mul:64 --partitions 2 --seed 21 --request-id mine --config {}",
                                    config),
                        submit_log);
    }),
              0)
        << read_text(submit_log);
    const auto id = std::stoull(read_text(submit_log).substr(read_text(submit_log).find_first_of("0123456789")));

    auto as_second = [&](const std::string& args, const std::string& name) {
        const auto log = second_dir / name;
        const int code = as_user(second_uid, other_gid, member, [&] { return cuzk_cli(args, log); });
        return std::pair{code, read_text(log)};
    };
    const auto owner = fmt::format("job {} belongs to another user (uid {})", id, other_uid);
    for (const auto& [args, name] :
         {std::pair{fmt::format("await {} --out {} --config {}", id, (second_dir / "x.proof").string(), config), "await"},
          std::pair{fmt::format("cancel {} --config {}", id, config), "cancel"},
          std::pair{fmt::format("submit --circuit mul:64 --partitions 2 --seed 21 --request-id mine --config {}", config),
                    "resubmit"}}) {
        const auto [code, text] = as_second(args, std::string(name) + ".log");
        EXPECT_EQ(code, 6) << name << ": " << text;  // exit_permission
        EXPECT_NE(text.find(owner), std::string::npos) << name << ": " << text;
    }
    EXPECT_FALSE(fs::exists(second_dir / "x.proof"));
    // The job's entry, as the JSON has it ("job": <id>, pretty-printed or not), in its owner's status only.
    const std::regex entry(fmt::format("\"job\":\\s*{}\\b", id));
    const auto [status_code, status] = as_second(fmt::format("status --json --config {}", config), "status.log");
    EXPECT_EQ(status_code, 0) << status;
    EXPECT_FALSE(std::regex_search(status, entry)) << "another's job listed: " << status;
    const auto own_status_log = client_dir_ / "status.log";
    ASSERT_EQ(as_user(other_uid, other_gid, member,
                      [&] { return cuzk_cli(fmt::format("status --json --config {}", config), own_status_log); }),
              0);
    EXPECT_TRUE(std::regex_search(read_text(own_status_log), entry)) << read_text(own_status_log);
    // The summary shows the stages the member may not ask as such, not as down.
    const auto [summary_code, summary] = as_second(fmt::format("status --config {}", config), "summary.log");
    EXPECT_EQ(summary_code, 0) << summary;
    EXPECT_NE(summary.find("synthd.sock is the service user's alone"), std::string::npos) << summary;
    EXPECT_NE(summary.find("gpud-0.sock is the service user's alone"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("down"), std::string::npos) << summary;

    // The service's user sees and awaits it; its submitter fetches it.
    sut_->expect_valid(sut_->await(id), "mul:64", 2, 21);
    const auto await_log = client_dir_ / "await-own.log";
    EXPECT_EQ(as_user(other_uid, other_gid, member, [&] {
        return cuzk_cli(fmt::format("await {} --out {} --config {}", id, (client_dir_ / "own.proof").string(), config),
                        await_log);
    }),
              0)
        << read_text(await_log);
    EXPECT_TRUE(fs::exists(client_dir_ / "own.proof"));
}

TEST_F(PipelineAccessModel, NoTcpPortIsOpenByDefault) {
    // The pipeline's configuration turns [metrics] off as the default now does; [api] listens on its Unix socket.
    const auto listening = listening_tcp_inodes();
    for (const auto* stage : {"assemblerd", "synthd", "gpud"}) {
        const auto fds = fs::path("/proc") / std::to_string(sut_->pid(stage)) / "fd";
        for (const auto& fd : fs::directory_iterator(fds)) {
            std::error_code ec;
            const auto target = fs::read_symlink(fd.path(), ec).string();
            if (!target.starts_with("socket:[")) continue;
            const auto inode = target.substr(8, target.size() - 9);
            EXPECT_FALSE(listening.count(inode)) << stage << " listens on TCP (socket inode " << inode << ")";
        }
    }
    daemon::config defaults;
    EXPECT_TRUE(defaults.metrics.listen.empty()) << "[metrics] listen opens a TCP port by default";
}
