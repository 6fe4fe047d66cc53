#include "cli/daemon_launcher.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli/service_client.hpp"
#include "common/util/errors.hpp"
#include "daemon/service_client.hpp"
#include "ipc/endpoints.hpp"

namespace cuzk::cli {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

namespace {

// Written by the daemon that holds the instance's lock (daemon/instance_lock.hpp), named as the lock is.
fs::path pid_file(const daemon::config& c, const stage_instance& i) {
    return c.runtime.dir / ((i.stage == "gpud" ? ipc::gpud_socket_name(i.gpu) : i.stage) + ".pid");
}
fs::path log_file(const daemon::config& c, const std::string& name) { return c.runtime.dir / "logs" / (name + ".log"); }

// A gpud's is its GPU's socket.
std::string socket_of(const stage_instance& i) {
    if (i.stage == "assemblerd") return std::string(ipc::socket_names::api);
    if (i.stage == "synthd") return std::string(ipc::socket_names::synthd);
    return ipc::gpud_socket_name(i.gpu);
}

// The pid from the pid file, when that process is alive and is this stage's daemon (a pid reused by another
// program is never signalled).
pid_t running_pid(const daemon::config& c, const stage_instance& i) {
    std::ifstream in(pid_file(c, i));
    pid_t pid = 0;
    if (!(in >> pid) || pid <= 0 || ::kill(pid, 0) != 0) return 0;
    std::ifstream cmdline(fmt::format("/proc/{}/cmdline", pid));
    std::string first;
    std::getline(cmdline, first, '\0');
    return first.find("cuzk-" + i.stage) != std::string::npos ? pid : 0;
}

// Every instance with a pid file in the runtime directory, in the order they start: assemblerd, synthd, then
// the gpuds ("gpud", "gpud-<gpu>"), whichever GPUs an earlier `cuzk up --gpus` started.
std::vector<stage_instance> instances_with_pid_files(const daemon::config& c) {
    std::vector<stage_instance> out = instances_of(c, {});
    std::error_code ec;
    std::vector<std::pair<int, std::string>> others;
    for (const auto& e : fs::directory_iterator(c.runtime.dir, ec)) {
        const std::string f = e.path().filename().string();
        if (!f.starts_with("gpud-") || !f.ends_with(".pid")) continue;
        const std::string digits = f.substr(5, f.size() - 9);
        if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 4) continue;
        const int gpu = std::stoi(digits);
        if (gpu != c.gpud.gpu) others.emplace_back(gpu, f.substr(0, f.size() - 4));  // the configured one is "gpud"
    }
    std::sort(others.begin(), others.end());
    for (const auto& [gpu, name] : others) out.push_back({"gpud", name, gpu});
    return out;
}

std::string log_tail(const fs::path& path) {
    std::ifstream in(path);
    std::vector<std::string> lines;
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    std::string out;
    for (std::size_t i = lines.size() > 8 ? lines.size() - 8 : 0; i < lines.size(); ++i) out += "\n  " + lines[i];
    return out;
}

bool answers(const daemon::config& c, const stage_instance& i) {
    try {
        auto r = daemon::request(c.endpoint(socket_of(i)), ipc::status_request_msg{}, 300ms);
        return r && std::holds_alternative<ipc::status_reply_msg>(*r);
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

fs::path find_daemon(const std::string& stage) {
    const std::string name = "cuzk-" + stage;
    if (const char* dir = std::getenv("CUZK_BIN_DIR"); dir && *dir) return fs::path(dir) / name;
    std::error_code ec;
    const auto self = fs::read_symlink("/proc/self/exe", ec).parent_path();
    for (const auto& candidate : {self / name, self.parent_path() / stage / name})
        if (fs::exists(candidate)) return candidate;
    return name;  // execvp searches PATH
}

std::vector<stage_instance> instances_of(const daemon::config& c, const std::vector<int>& gpus) {
    std::vector<stage_instance> out{{"assemblerd", "assemblerd"}, {"synthd", "synthd"}};
    for (const int gpu : gpus.empty() ? std::vector<int>{c.gpud.gpu} : gpus)
        out.push_back({"gpud", gpu == c.gpud.gpu ? std::string("gpud") : fmt::format("gpud-{}", gpu), gpu});
    return out;
}

std::vector<int> parse_gpu_list(const std::string& list) {
    std::vector<int> gpus;
    std::stringstream in(list);
    for (std::string item; std::getline(in, item, ',');) {
        int gpu = -1;
        const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), gpu);
        if (item.empty() || ec != std::errc{} || end != item.data() + item.size() || gpu < 0 || gpu > 1023)
            throw input_error(fmt::format("--gpus {}: '{}' is not a GPU index (0 to 1023)", list, item));
        if (std::find(gpus.begin(), gpus.end(), gpu) != gpus.end())
            throw input_error(fmt::format("--gpus {}: GPU {} is named twice (one gpud per GPU)", list, gpu));
        gpus.push_back(gpu);
    }
    if (gpus.empty()) throw input_error(fmt::format("--gpus '{}': no GPU named", list));
    return gpus;
}

std::vector<launched> start_stages(const daemon::config& c, const std::string& config_path, std::chrono::seconds wait,
                                   const std::vector<int>& gpus) {
    ipc::ensure_runtime_dir(c.runtime.dir);
    fs::create_directories(c.runtime.dir / "logs");
    std::vector<launched> out;
    for (const auto& inst : instances_of(c, gpus)) {
        if (const pid_t pid = running_pid(c, inst)) {
            out.push_back({inst, pid, true});
            continue;
        }
        const auto binary = find_daemon(inst.stage);
        std::vector<std::string> args{binary.string(), "--runtime-dir", c.runtime.dir.string()};
        if (!config_path.empty()) {
            args.push_back("--config");
            args.push_back(fs::absolute(config_path).string());
        }
        if (inst.gpu >= 0) {
            args.push_back("--gpu");
            args.push_back(std::to_string(inst.gpu));
        }
        const auto log = log_file(c, inst.name);
        const pid_t pid = ::fork();
        if (pid < 0) throw std::runtime_error("fork failed");
        if (pid == 0) {
            ::setsid();  // its own session: a terminal's ^C to `cuzk up` does not reach it
            const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
            const int null = ::open("/dev/null", O_RDONLY);
            if (fd >= 0) {
                ::dup2(fd, STDOUT_FILENO);
                ::dup2(fd, STDERR_FILENO);
            }
            if (null >= 0) ::dup2(null, STDIN_FILENO);
            std::vector<char*> argv;
            for (auto& a : args) argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execvp(argv[0], argv.data());
            std::fprintf(stderr, "cuzk up: cannot run %s: %s\n", argv[0], std::strerror(errno));
            ::_exit(127);
        }
        out.push_back({inst, pid, false});
    }
    const auto deadline = std::chrono::steady_clock::now() + wait;
    for (const auto& l : out) {
        const std::string& name = l.instance.name;
        while (!answers(c, l.instance)) {
            int status = 0;
            if (!l.already_running && ::waitpid(l.pid, &status, WNOHANG) == l.pid) {
                throw service_unavailable(fmt::format("cuzk-{} exited ({}) while starting; {}:{}", name,
                                                      WIFEXITED(status) ? fmt::format("status {}", WEXITSTATUS(status))
                                                                        : fmt::format("signal {}", WTERMSIG(status)),
                                                      log_file(c, name).string(), log_tail(log_file(c, name))));
            }
            if (std::chrono::steady_clock::now() > deadline) {
                throw service_unavailable(fmt::format("cuzk-{} (pid {}) did not answer within {} s; {}:{}", name,
                                                      l.pid, wait.count(), log_file(c, name).string(),
                                                      log_tail(log_file(c, name))));
            }
            std::this_thread::sleep_for(50ms);
        }
    }
    return out;
}

std::vector<std::string> stop_stages(const daemon::config& c, std::chrono::seconds grace) {
    std::vector<std::string> stopped;
    std::vector<std::pair<std::string, pid_t>> pids;
    // Reverse order of start: the front door last, so that it sees the stages' last results.
    const auto instances = instances_with_pid_files(c);
    for (auto it = instances.rbegin(); it != instances.rend(); ++it) {
        if (const pid_t pid = running_pid(c, *it)) {
            ::kill(pid, SIGTERM);
            pids.emplace_back(it->name, pid);
        }
    }
    const auto deadline = std::chrono::steady_clock::now() + grace;
    for (const auto& [stage, pid] : pids) {
        while (::kill(pid, 0) == 0 && std::chrono::steady_clock::now() < deadline) {
            ::waitpid(pid, nullptr, WNOHANG);  // reaps it when it is our child (cuzk demo)
            std::this_thread::sleep_for(20ms);
        }
        if (::kill(pid, 0) == 0) {
            std::fprintf(stderr, "cuzk down: cuzk-%s (pid %d) ignored SIGTERM for %lld s: killed\n", stage.c_str(), pid,
                         static_cast<long long>(grace.count()));
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
        stopped.push_back(stage);
    }
    for (const auto& inst : instances) {
        std::error_code ec;
        fs::remove(pid_file(c, inst), ec);
    }
    return stopped;
}

}  // namespace cuzk::cli
