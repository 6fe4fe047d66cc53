// Runs a shell command for the tests: its output (standard error too, unless asked otherwise) and its exit
// status, -1 when it did not exit normally or could not start. run_cuzk runs the built cuzk binary.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace cuzk::test {

struct command_result {
    int exit_code = -1;
    std::string output;
};

inline command_result run_command(const std::string& command, bool with_stderr = true) {
    command_result r;
    std::FILE* p = ::popen((with_stderr ? command + " 2>&1" : command).c_str(), "r");
    if (!p) return r;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) r.output.append(buf, n);
    const int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

#ifdef CUZK_CLI_PATH
inline command_result run_cuzk(const std::string& args) { return run_command(std::string(CUZK_CLI_PATH) + " " + args); }
#endif

}  // namespace cuzk::test
