// A fault soak: jobs are submitted while a driver, from a seeded random schedule, hits a random stage
// (assemblerd, synthd, gpud) at a random moment, while jobs are in flight where it can, with a random fault:
// kill -9 then a restart, SIGTERM then a restart (the graceful stop must exit 0 within a few seconds), SIGSTOP
// for 0.2-2 s then SIGCONT, and now and then a full spool (a file size limit on assemblerd, as in
// test_pipeline_full_disk) that is freed again after a while. Partitions lost with a process come back through a
// short partition_timeout_s.
// What it proves, once the faults stop and every stage runs: every job submitted ends exactly once, DONE with
// valid proofs or FAILED/CANCELLED with an error that says why; assemblerd's registry holds exactly the jobs
// submitted (a retried SUBMIT, with its request id, never makes a second job); the ring is all free; the spool
// holds an input per job and a result per done job, nothing more; and a last restart of assemblerd replays its
// journal without a complaint, into the same jobs in the same end states with the same proofs.
// CUZK_SOAK_SEED=N replays a fault schedule (the seed is printed; timings still differ from run to run);
// CUZK_SOAK_SECONDS=S runs the faults for S seconds with more jobs instead of the CI-sized ten faults. A watchdog
// bounds the whole test (CUZK_SOAK_LIMIT_S): past it the logs are printed, the daemons killed and the test fails.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/pipeline.hpp"

using namespace cuzk;
using namespace std::chrono_literals;
using cuzk::test::pipeline;
using soak_clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

namespace {

// Half a second to a second a partition on the CPU of a 2-core machine: a job lasts long enough for faults to land
// in it, and twelve of them keep the CI run near a minute.
const std::string circuit = "mul:8192";
constexpr std::uint32_t ring_slots = 4;
// A graceful stop ends the step in hand (a CPU proof of mul:8192, under a second; 1.4 s was the longest stop seen
// on a loaded 2-core machine) and exits.
constexpr auto graceful_stop_limit = 5s;

std::uint64_t env_u64(const char* name, std::uint64_t fallback) {
    const char* v = std::getenv(name);
    return v && *v ? std::stoull(v) : fallback;
}

double ms_since(soak_clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(soak_clock::now() - t0).count();
}

struct samples {
    std::vector<double> ms;
    void add(double v) { ms.push_back(v); }
    std::string summary() const {
        if (ms.empty()) return "none";
        auto s = ms;
        std::sort(s.begin(), s.end());
        return fmt::format("n={} min {:.0f} / median {:.0f} / max {:.0f} ms", s.size(), s.front(), s[s.size() / 2],
                           s.back());
    }
};

bool tracked(const pipeline& sut, const std::string& stage) {
    try {
        (void)sut.pid(stage);
        return true;
    } catch (const std::out_of_range&) {
        return false;
    }
}

// SIGTERM, then up to |limit| for the exit: its status (0: clean), -1 when a signal ended it, -2 when it was
// still running at the limit (it is then killed, so that nothing waits on it forever).
struct stop_outcome {
    int status;
    double ms;
};
stop_outcome graceful_stop(pipeline& sut, const std::string& stage, std::chrono::milliseconds limit) {
    const auto t0 = soak_clock::now();
    ::kill(sut.pid(stage), SIGTERM);
    const int status = sut.wait_exit(stage, limit);
    const double ms = ms_since(t0);
    if (status == -1 && tracked(sut, stage)) {
        sut.kill9(stage);
        return {-2, ms};
    }
    return {status, ms};
}

std::string describe(const stop_outcome& o) {
    if (o.status == -2) return "still running, killed";
    if (o.status == -1) return "ended by a signal";
    return fmt::format("exit {}", o.status);
}

// The test's own children (the daemons), from /proc.
std::vector<pid_t> children() {
    std::vector<pid_t> out;
    DIR* d = ::opendir("/proc");
    if (!d) return out;
    while (auto* e = ::readdir(d)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
        if (pid <= 0) continue;
        std::ifstream in(fmt::format("/proc/{}/stat", pid));
        std::string stat;
        std::getline(in, stat);
        const auto paren = stat.rfind(')');  // the command name may hold spaces and parentheses
        if (paren == std::string::npos) continue;
        std::istringstream rest(stat.substr(paren + 1));
        std::string state;
        pid_t ppid = 0;
        rest >> state >> ppid;
        if (ppid == ::getpid()) out.push_back(pid);
    }
    ::closedir(d);
    return out;
}

// The bound on the whole test: past it the logs are printed, the daemons killed, their segments removed and the
// test process exits, so that a hang anywhere (a daemon that never stops, a wait without end) fails the run
// instead of holding it. It keeps what it needs by value, so it may outlive the pipeline.
class watchdog {
public:
    watchdog(std::chrono::seconds limit, std::uint64_t seed) : limit_(limit), seed_(seed) {
        thread_ = std::thread([this] {
            std::unique_lock lock(m_);
            if (cv_.wait_for(lock, limit_, [this] { return done_; })) return;
            fire();
        });
    }
    void watch(const pipeline& sut) {
        std::lock_guard lock(m_);
        dir_ = sut.dir();
        ring_ = sut.config().ring.name;
        lock_ = sut.lock_name_of(0);
    }
    ~watchdog() {
        {
            std::lock_guard lock(m_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
    }

private:
    void fire() {
        std::fprintf(stderr, "[soak] WATCHDOG: the soak ran past %lld s (seed %llu); the daemons' logs follow\n",
                     static_cast<long long>(limit_.count()), static_cast<unsigned long long>(seed_));
        std::error_code ec;
        for (const auto& e : fs::directory_iterator(dir_, ec)) {
            if (e.path().extension() != ".log") continue;
            std::ifstream in(e.path());
            std::stringstream s;
            s << in.rdbuf();
            const auto text = s.str();
            std::fprintf(stderr, "---- %s (last 6000 bytes) ----\n%s\n", e.path().filename().c_str(),
                         text.substr(text.size() > 6000 ? text.size() - 6000 : 0).c_str());
        }
        for (const pid_t pid : children()) {
            ::kill(pid, SIGCONT);
            ::kill(pid, SIGKILL);
        }
        if (!ring_.empty()) ipc::partition_ring::remove(cuzk::test::named(ring_));
        if (!lock_.empty()) ipc::cuda_lock::remove(cuzk::test::named(lock_));
        std::fprintf(stderr, "[soak] WATCHDOG: daemons killed; the directory %s is kept\n", dir_.c_str());
        std::fflush(stderr);
        std::fflush(stdout);
        std::_Exit(1);
    }

    std::chrono::seconds limit_;
    std::uint64_t seed_;
    std::mutex m_;
    std::condition_variable cv_;
    bool done_ = false;
    fs::path dir_;
    std::string ring_, lock_;
    std::thread thread_;
};

enum class fault_kind { kill9, term, pause, full_disk };
const char* name_of(fault_kind k) {
    switch (k) {
        case fault_kind::kill9: return "SIGKILL+restart";
        case fault_kind::term: return "SIGTERM+restart";
        case fault_kind::pause: return "SIGSTOP/SIGCONT";
        case fault_kind::full_disk: return "full spool";
    }
    return "?";
}

struct soak_figures {
    std::map<std::string, int> injected;   // "<fault> <stage>"
    std::map<std::string, int> recovered;  // the stage answered STATUS again (full spool: writes caught up)
    std::map<std::string, samples> to_status;  // per stage: restart to answering STATUS
    samples restarts;                          // every restart to answering STATUS
    samples resumes;                           // SIGCONT to answering STATUS
    samples graceful_stops;                    // SIGTERM to exit
    samples spool_catch_up;                    // the limit lifted to no job reporting a write error
    int full_disk_ended_by_restart = 0;        // the limited assemblerd was restarted before the limit was lifted
    int mid_job = 0;                           // faults struck while jobs were in flight
};

// Picks and injects the faults, on a thread of its own, until |more| says enough or stop() is called. It is the
// only one to start and stop stages while it runs, and it leaves every stage running and none paused.
class fault_driver {
public:
    fault_driver(pipeline& sut, std::uint64_t seed, soak_clock::time_point t0) : sut_(sut), rng_(seed), t0_(t0) {}

    void run(const std::function<bool(int injected)>& more) {
        int injected = 0;
        while (!stop_ && !::testing::Test::HasFatalFailure() && more(injected)) {
            // A random moment while jobs are in flight (where it hurts); a pipeline left idle (every job done) is
            // struck after a short wait all the same.
            const auto gap = std::chrono::milliseconds(uniform(1000, 4000));
            const auto into_work = std::chrono::milliseconds(uniform(0, 1200));
            sleep_a_while(gap);
            const auto waiting_from = soak_clock::now();
            while (!stop_ && !busy() && soak_clock::now() - waiting_from < 3s) sleep_a_while(50ms);
            sleep_a_while(into_work);
            if (stop_) break;
            if (busy()) ++figures.mid_job;
            try {
                if (limited_ == 0 && uniform(0, 99) < 20) {
                    fill_spool();
                } else {
                    static const char* stages[] = {"assemblerd", "synthd", "gpud"};
                    const std::string stage = stages[uniform(0, 2)];
                    const auto kind = static_cast<fault_kind>(uniform(0, 2));  // kill9, term or pause
                    inject(kind, stage);
                }
            } catch (const std::exception& e) {
                ADD_FAILURE() << "fault " << injected + 1 << ": " << e.what();
                break;
            }
            ++injected;
        }
        // A full spool of the last fault lasts its while too.
        while (limited_ != 0 && !stop_) sleep_a_while(20ms);
        if (limited_ != 0) free_spool();
        // Whatever failed on the way, every stage runs at the end (a stage that cannot start is a failure).
        for (const auto* stage : {"assemblerd", "synthd", "gpud"})
            if (!tracked(sut_, stage)) restart(stage);
    }
    void stop() { stop_ = true; }
    soak_figures figures;

private:
    int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

    void note(const std::string& line) {
        const auto text = fmt::format("t={:6.1f}s {}", ms_since(t0_) / 1000, line);
        std::printf("[soak] %s\n", text.c_str());
        std::fflush(stdout);
    }

    // Sleeps in short steps, lifting the spool's limit when its while is over.
    void sleep_a_while(std::chrono::milliseconds d) {
        const auto until = soak_clock::now() + d;
        while (!stop_ && soak_clock::now() < until) {
            if (limited_ != 0 && soak_clock::now() >= lift_at_) free_spool();
            std::this_thread::sleep_for(20ms);
        }
    }

    void inject(fault_kind kind, const std::string& stage) {
        const auto key = fmt::format("{} {}", name_of(kind), stage);
        ++figures.injected[key];
        if (stage == "assemblerd" && kind != fault_kind::pause && limited_ != 0) {
            // The limit goes with the process: its successor finds the disk free again.
            ++figures.full_disk_ended_by_restart;
            limited_ = 0;
        }
        std::string how;
        if (kind == fault_kind::kill9) {
            sut_.kill9(stage);
        } else if (kind == fault_kind::term) {
            const auto o = graceful_stop(sut_, stage, graceful_stop_limit);
            figures.graceful_stops.add(o.ms);
            how = fmt::format(", {} after {:.0f} ms", describe(o), o.ms);
            EXPECT_EQ(o.status, 0) << "cuzk-" << stage << " did not stop cleanly on SIGTERM: " << describe(o)
                                   << " after " << o.ms << " ms\n"
                                   << sut_.log_of(stage);
        } else {
            const pid_t pid = sut_.pid(stage);
            const auto pause = std::chrono::milliseconds(uniform(200, 2000));
            ::kill(pid, SIGSTOP);
            std::this_thread::sleep_for(pause);
            ::kill(pid, SIGCONT);
            const auto t = soak_clock::now();
            const bool back = pipeline::wait_for([&] { return sut_.answers(stage); }, 30s);
            const double ms = ms_since(t);
            EXPECT_TRUE(back) << "cuzk-" << stage << " does not answer 30 s after SIGCONT\n" << sut_.log_of(stage);
            if (back) {
                ++figures.recovered[key];
                figures.resumes.add(ms);
            }
            note(fmt::format("{} paused {} ms: STATUS {:.0f} ms after SIGCONT", stage, pause.count(), ms));
            return;
        }
        const double ms = restart(stage);
        if (ms >= 0) ++figures.recovered[key];
        note(fmt::format("{} {}{}: restarted, STATUS after {:.0f} ms", name_of(kind), stage, how, ms));
    }

    // The time from the start to the stage answering STATUS; -1 when it did not start.
    double restart(const std::string& stage) {
        const auto t = soak_clock::now();
        sut_.start(stage);
        if (!tracked(sut_, stage) || !sut_.answers(stage)) return -1;
        const double ms = ms_since(t);
        figures.restarts.add(ms);
        figures.to_status[stage].add(ms);
        return ms;
    }

    // Sets the soft limit only, so that the test raises it back up to the hard one unprivileged.
    void fill_spool() {
        const pid_t pid = sut_.pid("assemblerd");
        ++figures.injected[fmt::format("{} assemblerd", name_of(fault_kind::full_disk))];
        if (::prlimit(pid, RLIMIT_FSIZE, nullptr, &before_) != 0) {
            ADD_FAILURE() << "prlimit: " << std::strerror(errno);
            return;
        }
        const rlimit full{64, before_.rlim_max};  // every write past 64 bytes fails, as ENOSPC would
        if (::prlimit(pid, RLIMIT_FSIZE, &full, nullptr) != 0) {
            ADD_FAILURE() << "prlimit: " << std::strerror(errno);
            return;
        }
        limited_ = pid;
        const auto hold = std::chrono::milliseconds(uniform(1000, 5000));
        lift_at_ = soak_clock::now() + hold;
        note(fmt::format("full spool for assemblerd (pid {}) for {} ms", pid, hold.count()));
    }

    void free_spool() {
        const pid_t pid = limited_;
        limited_ = 0;
        if (!tracked(sut_, "assemblerd") || sut_.pid("assemblerd") != pid) return;
        ASSERT_EQ(::prlimit(pid, RLIMIT_FSIZE, &before_, nullptr), 0) << std::strerror(errno);
        // Space is back: what the disk refused is written within the retry sweeps (each 250 ms).
        const auto t = soak_clock::now();
        const bool caught_up = pipeline::wait_for([&] { return write_errors() == 0; }, 30s);
        const double ms = ms_since(t);
        EXPECT_TRUE(caught_up) << "write errors remain 30 s after the spool was freed:\n" << sut_.status_text();
        if (caught_up) {
            ++figures.recovered[fmt::format("{} assemblerd", name_of(fault_kind::full_disk))];
            figures.spool_catch_up.add(ms);
        }
        note(fmt::format("spool freed: writes caught up after {:.0f} ms", ms));
    }

    // Jobs in flight (assemblerd answering).
    bool busy() const {
        try {
            return nlohmann::json::parse(sut_.status_text()).value("pending_jobs", 0) > 0;
        } catch (const std::exception&) {
            return false;
        }
    }

    // Jobs whose records or result the disk refused (-1: no status).
    int write_errors() const {
        try {
            const auto s = nlohmann::json::parse(sut_.status_text());
            int n = 0;
            for (const auto& j : s.at("jobs")) n += j.contains("write_error") ? 1 : 0;
            return n;
        } catch (const std::exception&) {
            return -1;
        }
    }

    pipeline& sut_;
    std::mt19937_64 rng_;
    soak_clock::time_point t0_;
    std::atomic<bool> stop_{false};
    pid_t limited_ = 0;  // the assemblerd under the file size limit
    rlimit before_{};
    soak_clock::time_point lift_at_{};
};

struct soak_job {
    soak_job(std::string r, std::uint32_t p, std::uint64_t s) : request_id(std::move(r)), partitions(p), seed(s) {}
    std::string request_id;
    std::uint32_t partitions = 0;
    std::uint64_t seed = 0;
    std::uint64_t id = 0;
    int attempts = 0;        // SUBMITs sent until one was answered with the job
    bool duplicate = false;  // the answer named a job an earlier, unanswered SUBMIT had made
    ipc::await_reply_msg end;
};

// SUBMIT with a request id, retried as a client would while assemblerd is down, paused, restarting or short of
// disk: the id makes every retry the same job.
void submit_until_accepted(pipeline& sut, soak_job& job, soak_clock::time_point deadline) {
    const auto file = sut.write_job(circuit, job.partitions, job.seed);
    const auto m = pipeline::submit_of_file(ipc::proof_kind::test_circuit, file, 0, job.request_id);
    std::string last = "no reply";
    while (soak_clock::now() < deadline && !::testing::Test::HasFatalFailure()) {
        ++job.attempts;
        std::optional<ipc::message> r;
        try {
            // Shorter than most pauses: a SUBMIT that a paused assemblerd takes up after SIGCONT has been given up
            // on, and its retry must be answered with the same job.
            r = sut.call("assemblerd", m, 1s);
        } catch (const std::exception& e) {
            last = e.what();
        }
        if (r) {
            if (auto* ok = std::get_if<ipc::submit_reply_msg>(&*r)) {
                job.id = ok->job_id;
                job.duplicate = ok->duplicate;
                return;
            }
            if (auto* e = std::get_if<ipc::error_reply_msg>(&*r)) {
                last = fmt::format("{}: {}", ipc::to_string(e->code), e->text);
                // A refusal of the request itself is no fault's doing.
                if (e->code == ipc::error_code::bad_request || e->code == ipc::error_code::unsupported_version) break;
            }
        }
        std::this_thread::sleep_for(100ms);
    }
    ADD_FAILURE() << "SUBMIT " << job.request_id << " not accepted (" << job.attempts << " attempts): " << last;
}

// Waits, bounded, for the job to end without fetching its result: a fetched result is kept only a grace period
// (five minutes), which a long soak outlasts, and every job must still be listed at the end.
ipc::await_reply_msg await_end(const pipeline& sut, std::uint64_t job, soak_clock::time_point deadline) {
    while (soak_clock::now() < deadline) {
        std::optional<ipc::message> r;
        try {
            r = sut.call("assemblerd", ipc::await_msg{job, 1000, false}, 3s);
        } catch (const std::exception&) {
        }
        if (auto* a = r ? std::get_if<ipc::await_reply_msg>(&*r) : nullptr) {
            if (a->state == ipc::job_state::done || a->state == ipc::job_state::failed ||
                a->state == ipc::job_state::cancelled)
                return *a;
        } else if (r) {
            ADD_FAILURE() << "AWAIT " << job << " answered with " << ipc::to_string(ipc::type_of(*r));
            return {};
        } else {
            std::this_thread::sleep_for(50ms);
        }
    }
    ADD_FAILURE() << "job " << job << " did not end in time\n" << sut.status_text();
    return {};
}

// The end of a job that has ended, with its proof when done (this counts as the client's fetch).
ipc::await_reply_msg fetch(const pipeline& sut, std::uint64_t job) {
    std::optional<ipc::message> r;
    try {
        r = sut.call("assemblerd", ipc::await_msg{job, 0, true}, 5s);
    } catch (const std::exception&) {
    }
    auto* a = r ? std::get_if<ipc::await_reply_msg>(&*r) : nullptr;
    if (!a) {
        ADD_FAILURE() << "no AWAIT reply for job " << job;
        return {};
    }
    return *a;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
    std::size_t n = 0;
    for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
    return n;
}

// Partitions that gpud proved more than once (work a fault made it redo: a proof lost with a killed gpud before
// it reached assemblerd, or with an assemblerd that had not journaled it), from its TIMELINE GPU_END lines.
std::size_t proved_again(const std::string& gpud_log) {
    std::map<std::pair<std::string, std::string>, int> proofs;
    std::istringstream in(gpud_log);
    for (std::string line; std::getline(in, line);) {
        const auto at = line.find(",GPU_END,");
        if (!line.starts_with("TIMELINE,") || at == std::string::npos) continue;
        const auto rest = line.substr(at + 9);
        const auto comma = rest.find(',');
        const auto p = rest.find("partition=");
        if (comma == std::string::npos || p == std::string::npos) continue;
        ++proofs[{rest.substr(0, comma), rest.substr(p + 10, rest.find(',', p) - p - 10)}];
    }
    return static_cast<std::size_t>(
        std::count_if(proofs.begin(), proofs.end(), [](const auto& e) { return e.second > 1; }));
}

// The names in a spool subdirectory.
std::set<std::string> names_in(const fs::path& dir) {
    std::set<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) out.insert(e.path().filename().string());
    return out;
}

std::map<std::uint64_t, nlohmann::json> jobs_in_status(const pipeline& sut) {
    std::map<std::uint64_t, nlohmann::json> out;
    const auto s = nlohmann::json::parse(sut.status_text());
    for (const auto& j : s.at("jobs")) out[j.at("job").get<std::uint64_t>()] = j;
    return out;
}

}  // namespace

TEST(PipelineFaultSoak, EveryJobEndsOnceThroughKillsStopsPausesAndAFullSpool) {
    const auto wall_t0 = soak_clock::now();
    const auto now = static_cast<std::uint64_t>(std::chrono::system_clock::now().time_since_epoch().count());
    const std::uint64_t seed = env_u64("CUZK_SOAK_SEED", now % 1000000007);
    const auto soak_seconds = env_u64("CUZK_SOAK_SECONDS", 0);
    const int job_count = soak_seconds ? std::max<int>(12, static_cast<int>(soak_seconds / 4)) : 12;
    const int fault_budget = soak_seconds ? INT_MAX : 10;
    const auto await_limit = std::chrono::seconds(std::max<int>(300, job_count * 8));
    std::printf("[soak] seed %llu (CUZK_SOAK_SEED=%llu replays this fault schedule), %d jobs, %s\n",
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(seed), job_count,
                soak_seconds ? fmt::format("faults for {} s", soak_seconds).c_str() : "10 faults");
    std::fflush(stdout);
    RecordProperty("seed", std::to_string(seed));

    // CUZK_SOAK_LIMIT_S overrides the bound on the whole test (the watchdog's).
    watchdog guard(std::chrono::seconds(env_u64("CUZK_SOAK_LIMIT_S", soak_seconds + await_limit.count() + 300)), seed);
    pipeline sut({.slots = ring_slots,
                  .synth_threads = 1,
                  .gpud_workers = 2,
                  .partition_timeout_s = 4,  // partitions a dead or paused stage held come back within seconds
                  .gpud_backend = "cpu"});
    guard.watch(sut);
    sut.start_all();
    if (HasFatalFailure()) return;

    // The parameters exist before the faults begin (gpud makes them on first use, which would dwarf the soak).
    std::vector<soak_job> jobs;
    jobs.push_back(soak_job{"soak-warm-up", 2, seed * 100});
    submit_until_accepted(sut, jobs[0], soak_clock::now() + 60s);
    ASSERT_FALSE(HasFailure());
    ASSERT_EQ(await_end(sut, jobs[0].id, soak_clock::now() + 240s).state, ipc::job_state::done);

    const auto soak_t0 = soak_clock::now();
    fault_driver driver(sut, seed, soak_t0);
    std::thread faults([&] {
        driver.run([&](int injected) {
            return soak_seconds ? ms_since(soak_t0) < soak_seconds * 1000.0 : injected < fault_budget;
        });
    });
    // Whatever ends the test body, the driver is stopped and joined before the pipeline goes.
    struct joiner {
        fault_driver& d;
        std::thread& t;
        ~joiner() {
            d.stop();
            if (t.joinable()) t.join();
        }
    } join_faults{driver, faults};

    // Submissions spread over about the time the faults take, so that most faults find jobs in flight.
    std::mt19937_64 rng(seed ^ 0x5eedf00dULL);
    const int max_gap_ms = soak_seconds ? static_cast<int>(2000 * soak_seconds / job_count) : 6500;
    for (int i = 0; i < job_count && !HasFatalFailure(); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(0, max_gap_ms)(rng)));
        soak_job job{fmt::format("soak-{}", i), std::uniform_int_distribution<std::uint32_t>(2, 3)(rng),
                     seed * 100 + 1 + static_cast<std::uint64_t>(i)};
        submit_until_accepted(sut, job, soak_clock::now() + 120s);
        jobs.push_back(job);
    }
    faults.join();
    const double fault_phase_s = ms_since(soak_t0) / 1000;
    ASSERT_FALSE(HasFatalFailure());
    for (const auto& j : jobs) ASSERT_NE(j.id, 0u) << j.request_id << " was never accepted";

    // Every job ends (within a bound) exactly once: done with valid proofs, or failed/cancelled saying why.
    std::map<std::string, int> ends;
    const auto await_deadline = soak_clock::now() + await_limit;
    for (auto& j : jobs) j.end = await_end(sut, j.id, await_deadline);
    for (auto& j : jobs) {
        if (j.end.state == ipc::job_state::unknown) {  // did not end: a failure already
            ++ends["not ended"];
            continue;
        }
        const auto first = j.end.state;
        j.end = fetch(sut, j.id);
        EXPECT_EQ(j.end.state, first) << "job " << j.id << " ended twice, differently";
        ++ends[std::string(ipc::to_string(j.end.state))];
        if (j.end.state == ipc::job_state::done) {
            sut.expect_valid(j.end, circuit, j.partitions, j.seed);
        } else {
            EXPECT_TRUE(j.end.state == ipc::job_state::failed || j.end.state == ipc::job_state::cancelled)
                << "job " << j.id << " did not end: " << ipc::to_string(j.end.state);
            EXPECT_FALSE(j.end.error.empty()) << "job " << j.id << " ended " << ipc::to_string(j.end.state)
                                              << " without saying why";
            std::printf("[soak] job %llu (%s) ended %s: %s\n", static_cast<unsigned long long>(j.id),
                        j.request_id.c_str(), std::string(ipc::to_string(j.end.state)).c_str(), j.end.error.c_str());
        }
    }
    const auto log = sut.log_of("assemblerd");
    for (const auto& j : jobs) {
        // Once only: a job's completion is not logged twice (the log misses lines written while the spool was
        // full, so at most once, not exactly once).
        EXPECT_LE(count_of(log, fmt::format(",JOB_DONE,{},", j.id)), 1u) << "job " << j.id;
        EXPECT_LE(count_of(log, fmt::format("job {} failed:", j.id)), 1u) << "job " << j.id;
    }

    // The registry holds exactly the jobs submitted, in the states their clients were told.
    std::map<std::uint64_t, nlohmann::json> listed;
    ASSERT_NO_THROW(listed = jobs_in_status(sut)) << sut.status_text();
    std::set<std::uint64_t> submitted_ids, listed_ids;
    for (const auto& j : jobs) submitted_ids.insert(j.id);
    for (const auto& [id, e] : listed) listed_ids.insert(id);
    EXPECT_EQ(submitted_ids.size(), jobs.size()) << "two requests were given one job";
    EXPECT_EQ(listed_ids, submitted_ids) << sut.status_text();
    for (const auto& j : jobs) {
        if (!listed.contains(j.id)) continue;
        EXPECT_EQ(listed[j.id].value("state", ""), ipc::to_string(j.end.state)) << listed[j.id].dump();
        EXPECT_EQ(listed[j.id].value("request_id", ""), j.request_id) << listed[j.id].dump();
    }
    EXPECT_TRUE(pipeline::wait_for([&] { return sut.slots_in(ipc::slot_state::free) == ring_slots; }, 20s))
        << "ring slots not all free: " << sut.slots_in(ipc::slot_state::free) << " of " << ring_slots;
    // Nothing left in the spool by a refused, interrupted or repeated submission, or a result cut short: an input
    // directory per job, a result per done job.
    const fs::path spool = sut.config().runtime.spool_dir;
    std::set<std::string> job_dirs, results;
    for (const auto& j : jobs) {
        job_dirs.insert(std::to_string(j.id));
        if (j.end.state == ipc::job_state::done) results.insert(fmt::format("{}.proof", j.id));
    }
    EXPECT_EQ(names_in(spool / "jobs"), job_dirs) << "spool/jobs";
    EXPECT_EQ(names_in(spool / "results"), results) << "spool/results";
    EXPECT_EQ(names_in(spool / "incoming"), std::set<std::string>{}) << "spool/incoming";
    std::uint64_t duplicate_proofs = 0;
    try {
        duplicate_proofs = nlohmann::json::parse(sut.status_text()).value("duplicate_partition_proofs", 0ULL);
    } catch (const std::exception&) {
    }
    const auto redispatched = count_of(log, "(partition_timeout_s), dispatched again");
    const auto lost_with_synthd = count_of(log, "handed to the previous synthd are dispatched again");
    const auto reproved = proved_again(sut.log_of("gpud"));

    // A last restart replays the journal as it was left: no complaint, the same jobs, states and proofs.
    const auto stopped = graceful_stop(sut, "assemblerd", graceful_stop_limit);
    EXPECT_EQ(stopped.status, 0) << "assemblerd: " << describe(stopped);
    const auto log_before = sut.log_of("assemblerd").size();
    sut.start("assemblerd");
    ASSERT_FALSE(HasFatalFailure());
    const auto replay_log = sut.log_of("assemblerd").substr(log_before);
    EXPECT_NE(replay_log.find(fmt::format(": {} jobs recovered, next job id", jobs.size())), std::string::npos)
        << replay_log;
    for (const auto* complaint : {"[error]", "[critical]", "corrupt", "dropped", "not compacted", "[warning]"})
        EXPECT_EQ(replay_log.find(complaint), std::string::npos) << "the replay logged " << complaint << ":\n"
                                                                  << replay_log;
    std::map<std::uint64_t, nlohmann::json> replayed;
    ASSERT_NO_THROW(replayed = jobs_in_status(sut)) << sut.status_text();
    std::set<std::uint64_t> replayed_ids;
    for (const auto& [id, e] : replayed) replayed_ids.insert(id);
    EXPECT_EQ(replayed_ids, submitted_ids) << sut.status_text();
    for (const auto& j : jobs) {
        const auto a = fetch(sut, j.id);
        EXPECT_EQ(a.state, j.end.state) << "job " << j.id;
        EXPECT_EQ(a.proof, j.end.proof) << "job " << j.id << ": not the proof given before the restart";
        if (j.end.state != ipc::job_state::done) {
            EXPECT_EQ(a.error, j.end.error) << "job " << j.id;
        }
    }

    // The stages stop cleanly at the end too, so that nothing is left for the pipeline's unbounded stop.
    for (const auto* stage : {"gpud", "synthd", "assemblerd"}) {
        const auto o = graceful_stop(sut, stage, graceful_stop_limit);
        EXPECT_EQ(o.status, 0) << stage << ": " << describe(o) << " after " << o.ms << " ms";
    }

    const auto& f = driver.figures;
    std::string injected, recovered;
    int total = 0;
    for (const auto& [k, n] : f.injected) {
        injected += fmt::format("\n[soak]   {:28} {:3} injected, {:3} recovered", k, n,
                                f.recovered.contains(k) ? f.recovered.at(k) : 0);
        total += n;
    }
    std::string per_stage;
    for (const auto& [stage, s] : f.to_status) per_stage += fmt::format("\n[soak]   {:10} {}", stage, s.summary());
    const double wall_s = ms_since(wall_t0) / 1000;
    std::string ended;
    for (const auto& [state, n] : ends) ended += fmt::format(" {} {}", state, n);
    std::printf(
        "[soak] ---- report (seed %llu) ----\n"
        "[soak] jobs %zu (warm-up included), ended:%s\n"
        "[soak] SUBMIT retries %d, answered as a duplicate %d\n"
        "[soak] faults %d (%d while jobs were in flight) over %.1f s:%s\n"
        "[soak] restart to STATUS: %s\n"
        "[soak] SIGCONT to STATUS: %s\n"
        "[soak] to STATUS by stage:%s\n"
        "[soak] SIGTERM to exit: %s\n"
        "[soak] spool freed to writes caught up: %s; full spools ended by a restart: %d\n"
        "[soak] partitions dispatched again after partition_timeout_s: %zu, after a synthd restart: %zu; "
        "duplicate partition proofs ignored (since the last assemblerd start): %llu; partitions proved more than "
        "once: %zu\n"
        "[soak] final assemblerd stop %.0f ms; wall %.1f s\n",
        static_cast<unsigned long long>(seed), jobs.size(), ended.c_str(),
        [&] {
            int n = 0;
            for (const auto& j : jobs) n += j.attempts - 1;
            return n;
        }(),
        static_cast<int>(std::count_if(jobs.begin(), jobs.end(), [](const soak_job& j) { return j.duplicate; })),
        total, f.mid_job, fault_phase_s, injected.c_str(), f.restarts.summary().c_str(), f.resumes.summary().c_str(),
        per_stage.c_str(), f.graceful_stops.summary().c_str(), f.spool_catch_up.summary().c_str(),
        f.full_disk_ended_by_restart, redispatched, lost_with_synthd,
        static_cast<unsigned long long>(duplicate_proofs), reproved, stopped.ms, wall_s);
    std::fflush(stdout);
    RecordProperty("jobs", static_cast<int>(jobs.size()));
    RecordProperty("faults", total);
    RecordProperty("wall_s", fmt::format("{:.1f}", wall_s));
    RecordProperty("restart_to_status", f.restarts.summary());
    // On a failure the pipeline's destructor prints the daemons' logs.
}
