// Progress of long work (`cuzk setup`, `cuzk prove`, `cuzk await`, `cuzk prove-c2`) on stderr, in the form its
// reader keeps. On a terminal: one line rewritten in place (carriage return). Anywhere else (a pipe, a file, the
// journal under systemd): separate lines, each with the elapsed time, printed when the progress changes and at
// least every --progress-interval seconds while it does not, so a log shows how far the work got and that it is
// still alive; carriage returns there would pile up into one unreadable line, and silence looks like a hang.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

namespace cuzk::cli {

// --progress-interval: seconds between progress lines in a log while nothing changes (0: only on a change).
struct progress_options {
    unsigned interval_s = 10;
    void add_to(CLI::App& cmd);
};

// Progress states of one piece of work, printed to |out| (stderr) as the header says. Not thread-safe: one
// caller updates it (progress_heartbeat serialises its own thread with the caller).
class progress_lines {
public:
    // |terminal|: whether |out| is a terminal (default: isatty of stderr).
    progress_lines(std::string what, const progress_options& options, std::FILE* out = stderr);
    progress_lines(std::string what, const progress_options& options, std::FILE* out, bool terminal);
    ~progress_lines();

    // "3/10 partitions proved": printed when it differs from the last one printed, or (outside a terminal) when
    // the interval has passed since the last line.
    void update(const std::string& state);
    // Printed whatever was printed before (a heartbeat's tick).
    void show(const std::string& state);
    // The last line: always printed; ends the in-place line of a terminal.
    void finish(const std::string& state);

    double elapsed_s() const;
    bool terminal() const { return terminal_; }

private:
    void print(const std::string& state, bool last);

    std::string what_;
    std::chrono::seconds interval_;
    std::FILE* out_;
    bool terminal_;
    bool open_line_ = false;  // a terminal line not ended by a newline yet
    bool finished_ = false;
    std::string shown_;
    std::chrono::steady_clock::time_point start_, last_line_;
};

// For work that reports no steps of its own (Groth16 setup, one local proof): "started", a line every interval
// (every second in place on a terminal) with the elapsed time and the current step, and "done" (or "stopped by
// an error" when the work threw) with the elapsed time when it goes out of scope.
class progress_heartbeat {
public:
    progress_heartbeat(std::string what, const progress_options& options, std::FILE* out = stderr);
    ~progress_heartbeat();
    // The step now running, shown on the following lines ("partition 3/10").
    void step(const std::string& name);

private:
    void run();

    progress_lines lines_;
    int uncaught_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    std::string step_;
    std::chrono::seconds tick_;
    std::thread thread_;
};

}  // namespace cuzk::cli
