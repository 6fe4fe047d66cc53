#include "daemon/daemon_main.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>

#include "common/daemon/pinning.hpp"
#include "common/util/errors.hpp"
#include "common/util/version.hpp"
#include "daemon/logging.hpp"
#include "ipc/endpoints.hpp"
#include "daemon/shutdown_signal.hpp"

namespace cuzk::daemon {

namespace {

struct flags {
    std::string config_path;
    std::optional<int> numa_node;
    std::optional<std::string> cpus;
    std::optional<int> gpu;
    std::string runtime_dir;
    std::string log_level;
};

// The section of |c| whose numa_node / cpus this stage uses.
template <class F>
void with_pinning_of(config& c, std::string_view stage, F&& f) {
    if (stage == "synthd") f(c.synthd.numa_node, c.synthd.cpus);
    else if (stage == "gpud") f(c.gpud.numa_node, c.gpud.cpus);
    else f(c.assemblerd.numa_node, c.assemblerd.cpus);
}

}  // namespace

int daemon_main(int argc, char** argv, const daemon_definition& def) {
    const std::string binary = fmt::format("cuzk-{}", def.name);
    CLI::App app{std::string(def.description), binary};
    app.set_version_flag("--version", cuzk::version_string());
    flags f;
    app.add_option("--config", f.config_path, "TOML configuration (default: built-in defaults)")->check(CLI::ExistingFile);
    app.add_option("--numa-node", f.numa_node, "run on this NUMA node's CPUs and memory");
    app.add_option("--cpus", f.cpus, "CPU list, e.g. 0-7,16");
    if (def.takes_gpu) app.add_option("--gpu", f.gpu, "GPU index");
    app.add_option("--runtime-dir", f.runtime_dir, "directory of the sockets (overrides [runtime] dir)");
    app.add_option("--log-level", f.log_level, "trace, debug, info, warn, error (overrides [runtime] log_level)");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e) == 0 ? 0 : 2;
    }

    config c;
    try {
        c = load_config_or_defaults(f.config_path.empty() ? std::nullopt
                                                          : std::optional<std::filesystem::path>(f.config_path));
        if (!f.runtime_dir.empty()) c.runtime.dir = f.runtime_dir;
        if (!f.log_level.empty()) c.runtime.log_level = f.log_level;
        if (f.gpu) c.gpud.gpu = *f.gpu;
        with_pinning_of(c, def.name, [&](std::optional<int>& node, std::string& cpus) {
            if (f.numa_node) node = *f.numa_node;
            if (f.cpus) cpus = *f.cpus;
        });
        c.resolve_defaults();
        validate(c);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: configuration error: %s\n", binary.c_str(), e.what());
        return 2;
    }

    setup_logging(def.name, c.runtime.log_level);
    install_shutdown_handlers();
    try {
        pinning p;
        with_pinning_of(c, def.name, [&](std::optional<int>& node, std::string& cpus) {
            p.numa_node = node;
            p.cpu_list = cpus;
        });
        apply_pinning(p);
        ipc::ensure_runtime_dir(c.runtime.dir);
        spdlog::info("{} {} starting (pid {}, runtime dir {}, spool {})", binary, cuzk::version_string(), ::getpid(),
                     c.runtime.dir.string(), c.runtime.spool_dir.string());
        const int code = def.serve(c);
        spdlog::info("{} stopped", binary);
        spdlog::default_logger()->flush();
        return code;
    } catch (const input_error& e) {
        spdlog::critical("{}: {}", binary, e.what());
        return 2;
    } catch (const std::exception& e) {
        spdlog::critical("{} failed: {}", binary, e.what());
        return 1;
    }
}

}  // namespace cuzk::daemon
