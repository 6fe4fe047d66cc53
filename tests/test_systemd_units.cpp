// The systemd units of systemd/: the settings the deployment relies on (notify + watchdog, restart on
// failure, each stage restartable alone, memlock and file limits, the cuzk user and directories, no
// home paths), NUMA placement equal to the example config's, and `systemd-analyze verify`.
//
// verify checks that ExecStart's binary exists and is executable, and /usr/local/bin/cuzk-<stage> is not
// installed on a build machine. So verify runs on copies in a temporary directory whose ExecStart points
// at the build tree's cuzk-<stage> when it is built, else at the cuzk CLI binary (an existing executable:
// every other line of the unit, arguments included, is checked unchanged). verify only warns on unknown
// keys and unparsable values (exit status 0), so any output at all fails the test.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "support/run_command.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path units_dir = fs::path(CUZK_SOURCE_DIR) / "systemd";
const std::vector<std::string> stage_units = {"cuzk-assemblerd.service", "cuzk-synthd.service", "cuzk-gpud@.service"};

struct entry {
    std::string section, key, value;
    int line = 0;
};

std::vector<entry> read_unit(const fs::path& p) {
    std::ifstream in(p);
    EXPECT_TRUE(in) << "cannot open " << p;
    std::vector<entry> out;
    std::string text, section;
    int line = 0;
    while (std::getline(in, text)) {
        ++line;
        if (text.empty() || text[0] == '#' || text[0] == ';') continue;
        if (text[0] == '[') {
            section = text.substr(1, text.find(']') - 1);
            continue;
        }
        std::size_t eq = text.find('=');
        if (eq == std::string::npos) {
            ADD_FAILURE() << p << ":" << line << ": not key=value: " << text;
            continue;
        }
        out.push_back({section, text.substr(0, eq), text.substr(eq + 1), line});
    }
    return out;
}

std::vector<std::string> values(const std::vector<entry>& unit, const std::string& section, const std::string& key) {
    std::vector<std::string> v;
    for (const entry& e : unit) {
        if (e.section == section && e.key == key) v.push_back(e.value);
    }
    return v;
}

std::string value(const std::vector<entry>& unit, const std::string& section, const std::string& key) {
    auto v = values(unit, section, key);
    if (v.size() == 1) return v[0];
    return fmt::format("<{} values of {}>", v.size(), key);
}

std::string stage_of(const std::string& unit) {  // "cuzk-gpud@.service" -> "gpud"
    std::string s = unit.substr(5);
    return s.substr(0, s.find_first_of("@."));
}

// A key of one section of the example config: its active value when set and non-empty, else the
// example the file documents beside it ("# numa_node = 0  # example", "cpus = \"\"  # example: \"0-7\"").
std::optional<std::string> example_value(const std::string& section, const std::string& key) {
    std::ifstream in(units_dir / "cuzk.example.toml");
    EXPECT_TRUE(in) << "cannot open systemd/cuzk.example.toml";
    const std::regex line_re("^\\s*(#\\s*)?" + key + "\\s*=\\s*(\"[^\"]*\"|[0-9]+)(.*)$");
    const std::regex example_re("#\\s*example:\\s*\"([^\"]*)\"");
    std::string text, current;
    std::optional<std::string> active, documented;
    while (std::getline(in, text)) {
        if (text.rfind('[', 0) == 0) {
            current = text.substr(1, text.find(']') - 1);
            continue;
        }
        std::smatch m;
        if (current != section || !std::regex_match(text, m, line_re)) continue;
        std::string v = m[2];
        if (v.front() == '"') v = v.substr(1, v.size() - 2);
        std::string rest = m[3];
        if (m[1].matched) {
            if (!v.empty()) documented = v;
        } else if (!v.empty()) {
            active = v;
        } else if (std::smatch ex; std::regex_search(rest, ex, example_re)) {
            documented = ex[1];
        }
    }
    return active ? active : documented;
}

struct run_result {
    int status = -1;
    std::string output;
};

run_result run(const std::string& cmd) {
    auto c = cuzk::test::run_command(cmd);
    return {c.exit_code, c.output};
}

}  // namespace

TEST(systemd_units, stages_are_notify_services_with_watchdog_restart_and_limits) {
    for (const std::string& name : stage_units) {
        SCOPED_TRACE(name);
        auto u = read_unit(units_dir / name);
        EXPECT_EQ(value(u, "Service", "Type"), "notify");
        EXPECT_EQ(value(u, "Service", "NotifyAccess"), "main");
        EXPECT_EQ(value(u, "Service", "WatchdogSec"), "30s");
        EXPECT_EQ(value(u, "Service", "Restart"), "on-failure");
        EXPECT_EQ(value(u, "Service", "LimitMEMLOCK"), "infinity");
        EXPECT_GE(std::stol(value(u, "Service", "LimitNOFILE")), 65536);
        EXPECT_EQ(value(u, "Service", "User"), "cuzk");
        EXPECT_TRUE(values(u, "Service", "DynamicUser").empty());  // RemoveIPC would delete the ring
        EXPECT_EQ(value(u, "Service", "RuntimeDirectory"), "cuzk");
        EXPECT_EQ(value(u, "Service", "RuntimeDirectoryPreserve"), "yes");
        EXPECT_EQ(value(u, "Service", "StateDirectory"), "cuzk");
        EXPECT_EQ(value(u, "Install", "WantedBy"), "cuzk.target");
        std::string stage = stage_of(name);
        std::string exec = "/usr/local/bin/cuzk-" + stage + " --config /etc/cuzk/cuzk.toml";
        if (stage == "gpud") exec += " --gpu %i";
        EXPECT_EQ(value(u, "Service", "ExecStart"), exec);
    }
    EXPECT_EQ(value(read_unit(units_dir / "cuzk-gpud@.service"), "Install", "DefaultInstance"), "0");
}

TEST(systemd_units, each_stage_restarts_alone_and_the_target_groups_them) {
    for (const std::string& name : stage_units) {
        SCOPED_TRACE(name);
        auto u = read_unit(units_dir / name);
        EXPECT_EQ(value(u, "Unit", "PartOf"), "cuzk.target");
        // A Requires=/BindsTo=/Requisite= between stages would stop or restart one with another.
        for (const char* key : {"Requires", "BindsTo", "Requisite", "Upholds", "PropagatesStopTo"}) {
            EXPECT_TRUE(values(u, "Unit", key).empty()) << key;
        }
    }
    auto target = read_unit(units_dir / "cuzk.target");
    EXPECT_EQ(value(target, "Unit", "Wants"), "cuzk-assemblerd.service cuzk-synthd.service");
    EXPECT_EQ(value(target, "Install", "WantedBy"), "multi-user.target");
}

TEST(systemd_units, every_referenced_unit_exists) {
    // verify does not report a Wants= naming a unit that exists nowhere; check our own references.
    for (const std::string& name : {stage_units[0], stage_units[1], stage_units[2], std::string("cuzk.target")}) {
        for (const entry& e : read_unit(units_dir / name)) {
            if (e.key != "Wants" && e.key != "After" && e.key != "PartOf" && e.key != "WantedBy") continue;
            std::istringstream words(e.value);
            for (std::string ref; words >> ref;) {
                if (ref == "multi-user.target") continue;
                EXPECT_TRUE(fs::exists(units_dir / ref)) << name << ":" << e.line << ": " << ref;
            }
        }
    }
}

TEST(systemd_units, no_home_paths) {
    for (const auto& f : fs::directory_iterator(units_dir)) {
        std::ifstream in(f.path());
        std::string text;
        int line = 0;
        while (std::getline(in, text)) {
            ++line;
            if (text.rfind('#', 0) == 0) continue;
            EXPECT_EQ(text.find("/home"), std::string::npos) << f.path() << ":" << line;
            EXPECT_EQ(text.find("~/"), std::string::npos) << f.path() << ":" << line;
            EXPECT_EQ(text.find("/root"), std::string::npos) << f.path() << ":" << line;
        }
    }
}

TEST(systemd_units, placement_matches_the_example_config) {
    for (const std::string& name : {std::string("cuzk-synthd.service"), std::string("cuzk-gpud@.service")}) {
        SCOPED_TRACE(name);
        const std::string section = stage_of(name);
        auto node = example_value(section, "numa_node");
        auto cpus = example_value(section, "cpus");
        auto u = read_unit(units_dir / name);
        if (node) {
            EXPECT_EQ(value(u, "Service", "NUMAPolicy"), "preferred");  // as apply_pinning: prefer, not bind
            EXPECT_EQ(value(u, "Service", "NUMAMask"), *node);
        } else {
            EXPECT_TRUE(values(u, "Service", "NUMAMask").empty());
        }
        if (cpus) {
            std::string list = *cpus;
            std::replace(list.begin(), list.end(), ',', ' ');
            EXPECT_EQ(value(u, "Service", "CPUAffinity"), list);
        } else if (node) {
            EXPECT_EQ(value(u, "Service", "CPUAffinity"), "numa");  // the node's CPUs, like numa_run_on_node
        } else {
            EXPECT_TRUE(values(u, "Service", "CPUAffinity").empty());
        }
    }
}

TEST(systemd_units, systemd_analyze_verify) {
    if (run("command -v systemd-analyze").status != 0) {
        FAIL() << "systemd-analyze is not installed (dev.sh installs the systemd package): the units were not verified";
    }
    const fs::path build_dir = fs::path(CUZK_CLI_PATH).parent_path().parent_path();
    const fs::path dir = fs::temp_directory_path() / ("cuzk-units-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    for (const auto& f : fs::directory_iterator(units_dir)) {
        std::string file = f.path().filename().string();
        if (!f.path().has_extension() || (f.path().extension() != ".service" && f.path().extension() != ".target")) {
            continue;
        }
        std::ifstream in(f.path());
        std::ofstream out(dir / file);
        std::string text;
        while (std::getline(in, text)) {
            const std::string prefix = "ExecStart=/usr/local/bin/";
            if (text.rfind(prefix, 0) == 0) {
                std::string binary = text.substr(prefix.size(), text.find(' ') - prefix.size());
                fs::path built = build_dir / binary.substr(5) / binary;  // build/<stage>/cuzk-<stage>
                fs::path exe = fs::exists(built) ? built : fs::path(CUZK_CLI_PATH);
                text = "ExecStart=" + exe.string() + text.substr(prefix.size() + binary.size());
            }
            out << text << "\n";
        }
    }
    // The template is verified through an instance; the target pulls in the two plain services.
    run_result r = run("systemd-analyze verify " + (dir / "cuzk.target").string() + " " +
                       (dir / "cuzk-assemblerd.service").string() + " " + (dir / "cuzk-synthd.service").string() +
                       " " + (dir / "cuzk-gpud@0.service").string() + " " + (dir / "cuzk-gpud@3.service").string());
    EXPECT_EQ(r.status, 0) << r.output;
    EXPECT_EQ(r.output, "") << "systemd-analyze verify reported problems";
    fs::remove_all(dir);
}
