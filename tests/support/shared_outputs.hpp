// What a slow `cuzk` command writes into its --out directory (a 2 KiB PoRep setup takes over a minute on two
// cores), made once per build of cuzk and shared by the test processes that need it: ctest runs every test of a
// fixture in a process of its own, so a SetUpTestSuite that ran the command itself ran it once per test.
//
// cuzk_output_once(ARGS) runs `cuzk ARGS --out DIR` for the first process that asks (under an flock, so a second
// asker waits and reuses), keeping DIR under the build tree's test-outputs/ with a stamp of the arguments and of the
// cuzk binary (size and modification time): a rebuilt cuzk makes it again, a failed run is not kept (the next asker
// runs it again and sees the failure too). One directory per argument string, so the cache does not grow; named for
// the arguments, so that tests/api_client/run_test.sh finds the same parameters.
// The directory is shared: a test writes nothing into it, but into its own (linked_copy of it).
#pragma once

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <system_error>

#include "run_command.hpp"

namespace cuzk::test {

#if defined(CUZK_CLI_PATH) && defined(CUZK_TEST_OUTPUTS_DIR)

struct shared_output {
    std::filesystem::path dir;
    command_result made;  // of the run that made it; for a reused one, exit 0 and a line saying so
};

inline shared_output cuzk_output_once(const std::string& args) {
    namespace fs = std::filesystem;
    const fs::path root = CUZK_TEST_OUTPUTS_DIR;
    fs::create_directories(root);
    // The key: the arguments with every character but [A-Za-z0-9._-] as '_' (a long one cut, its hash added).
    std::string key = args;
    for (char& c : key)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-') c = '_';
    if (key.size() > 160) {
        std::ostringstream h;
        h << std::hex << std::hash<std::string>{}(args);
        key = key.substr(0, 160) + "_" + h.str();
    }
    const fs::path dir = root / key;
    const fs::path stamp_file = root / (key + ".made");

    // As `stat -c '%s %.9Y'` prints them (tests/api_client/run_test.sh makes the same stamp).
    struct ::stat st {};
    ::stat(CUZK_CLI_PATH, &st);
    char identity[64];
    std::snprintf(identity, sizeof identity, "%lld %lld.%09ld", static_cast<long long>(st.st_size),
                  static_cast<long long>(st.st_mtim.tv_sec), static_cast<long>(st.st_mtim.tv_nsec));
    const std::string stamp = args + "\n" + identity + "\n";

    // The lock is held until this function returns (closing the descriptor releases it).
    struct lock_file {
        int fd;
        explicit lock_file(const fs::path& p) : fd(::open(p.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
            if (fd >= 0) ::flock(fd, LOCK_EX);
        }
        ~lock_file() {
            if (fd >= 0) ::close(fd);
        }
    } lock(root / (key + ".lock"));

    std::ifstream in(stamp_file);
    const std::string found((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (found == stamp && fs::is_directory(dir)) return {dir, {0, "reused " + dir.string() + "\n"}};

    std::error_code ec;
    fs::remove(stamp_file, ec);
    fs::remove_all(dir, ec);
    fs::create_directories(dir);
    shared_output r{dir, run_cuzk(args + " --out " + dir.string())};
    if (r.made.exit_code == 0) std::ofstream(stamp_file) << stamp;
    return r;
}

// |to| made a directory of its own holding |from|'s files: those under 16 MiB copied (a test may rewrite one in
// place: its JSON, its vanilla proofs), larger ones (parameters) linked. New files written in |to| stay there; a
// linked file written through would change the shared one, so a test only reads its parameters.
inline void linked_copy(const std::filesystem::path& from, const std::filesystem::path& to) {
    namespace fs = std::filesystem;
    fs::create_directories(to);
    for (const auto& e : fs::recursive_directory_iterator(from)) {
        const fs::path target = to / fs::relative(e.path(), from);
        if (e.is_directory()) {
            fs::create_directories(target);
        } else if (e.file_size() < (std::uintmax_t(16) << 20)) {
            fs::copy_file(e.path(), target, fs::copy_options::overwrite_existing);
        } else {
            fs::create_symlink(e.path(), target);
        }
    }
}

// `cuzk setup --circuit CIRCUIT`'s parameters made once (cuzk_output_once) and given to |dir| (linked_copy), as a
// test's params_dir; the result of the run that made them.
inline command_result setup_into(const std::string& circuit, const std::filesystem::path& dir) {
    const shared_output setup = cuzk_output_once("setup --circuit " + circuit);
    if (setup.made.exit_code == 0) linked_copy(setup.dir, dir);
    return setup.made;
}

#endif

}  // namespace cuzk::test
