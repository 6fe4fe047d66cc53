// `cuzk down` however a test that ran `cuzk up` ends; on a failure the daemons' logs (cuzk up writes
// <runtime dir>/logs/) are printed first, their last 4000 bytes each.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "run_command.hpp"

namespace cuzk::test {

struct daemons_up {
    std::string cfg;  // "--config FILE"
    std::filesystem::path logs;
    ~daemons_up() {
        (void)run_cuzk("down " + cfg);
        if (!::testing::Test::HasFailure()) return;
        for (const auto* stage : {"assemblerd", "synthd", "gpud"}) {
            std::ifstream in(logs / (std::string(stage) + ".log"));
            std::stringstream text;
            text << in.rdbuf();
            const auto t = text.str();
            std::fprintf(stderr, "---- %s.log (last 4000 bytes) ----\n%s\n", stage,
                         t.substr(t.size() > 4000 ? t.size() - 4000 : 0).c_str());
        }
    }
};

}  // namespace cuzk::test
