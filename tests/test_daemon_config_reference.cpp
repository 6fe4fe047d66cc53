// The configuration reference cannot drift from the parser: docs/configuration.md is the generated text, every
// schema key is read by load_config (and named in its errors), and systemd/cuzk.example.toml names exactly the
// schema's keys, each in its own section.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "daemon/config.hpp"
#include "daemon/config_reference.hpp"
#include "daemon/config_schema.hpp"
#include "tests/support/config_file.hpp"

using namespace cuzk;

namespace {

std::string read_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::string qualified(std::string_view section, std::string_view key) {
    return fmt::format("[{}] {}", section, key);
}

}  // namespace

TEST(DaemonConfigReference, CommittedReferenceIsTheGeneratedOne) {
    const auto committed = read_file(CUZK_SOURCE_DIR "/docs/configuration.md");
    EXPECT_EQ(committed, daemon::config_reference())
        << "docs/configuration.md differs from the schema (daemon/config_schema.cpp): run "
           "`build/cli/cuzk config-reference > docs/configuration.md`";
}

// A value no key accepts (a table) is refused naming the key: the parser reads every key of the schema.
TEST(DaemonConfigReference, EverySchemaKeyIsRead) {
    for (const auto& key : daemon::config_schema()) {
        const auto e = test::config_error_of(fmt::format("[{}]\n{} = [1, 2]\n", key.section, key.name));
        EXPECT_NE(e.find(qualified(key.section, key.name) + " must be "), std::string::npos) << e;
        EXPECT_EQ(e.find("unknown key"), std::string::npos) << e;
    }
}

TEST(DaemonConfigReference, DefaultsAreTheConfigsOwn) {
    for (const auto& key : daemon::config_schema()) EXPECT_FALSE(daemon::default_value(key).empty()) << key.name;
    const auto& keys = daemon::config_schema();
    const auto find = [&](std::string_view section, std::string_view name) {
        for (const auto& k : keys)
            if (k.section == section && k.name == name) return daemon::default_value(k);
        return std::string("missing");
    };
    EXPECT_EQ(find("runtime", "log_level"), "\"info\"");
    EXPECT_EQ(find("ring", "slot_bytes"), "268435456");
    EXPECT_EQ(find("assemblerd", "partition_timeout_s"), "600");
    EXPECT_EQ(find("assemblerd", "verify"), "true");
    EXPECT_EQ(find("synthd", "numa_node"), "unset");
    EXPECT_EQ(find("gpud", "params_dir"), "\"\"");
}

// Every `key = value` line of the example, commented out or not, names a key of the schema in its section, and
// every schema key is there, so the example documents them all.
TEST(DaemonConfigReference, ExampleNamesExactlyTheSchemasKeys) {
    std::ifstream in(CUZK_SOURCE_DIR "/systemd/cuzk.example.toml");
    ASSERT_TRUE(in) << "cannot open systemd/cuzk.example.toml";
    const std::regex section_line(R"(^\[(\w+)\]\s*$)");
    const std::regex key_line(R"(^#?\s*(\w+)\s*=)");
    std::set<std::string> schema;
    for (const auto& key : daemon::config_schema()) schema.insert(qualified(key.section, key.name));
    std::set<std::string> named;
    std::string section;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        std::smatch m;
        if (std::regex_match(line, m, section_line)) {
            section = m[1];
        } else if (std::regex_search(line, m, key_line)) {
            const auto name = qualified(section, m[1].str());
            EXPECT_TRUE(schema.count(name)) << "systemd/cuzk.example.toml:" << number << ": " << name
                                            << " is not a key of daemon/config_schema.cpp";
            named.insert(name);
        }
    }
    for (const auto& name : schema) EXPECT_TRUE(named.count(name)) << name << " is missing from the example";
}
