#include "cli/progress_lines.hpp"

#include <unistd.h>

#include <exception>

namespace cuzk::cli {

using steady = std::chrono::steady_clock;

void progress_options::add_to(CLI::App& cmd) {
    cmd.add_option("--progress-interval", interval_s,
                   "when stderr is not a terminal: seconds between progress lines while nothing changes (0: only on a "
                   "change)")
        ->capture_default_str();
}

progress_lines::progress_lines(std::string what, const progress_options& options, std::FILE* out)
    : progress_lines(std::move(what), options, out, ::isatty(::fileno(out)) != 0) {}

progress_lines::progress_lines(std::string what, const progress_options& options, std::FILE* out, bool terminal)
    : what_(std::move(what)),
      interval_(options.interval_s),
      out_(out),
      terminal_(terminal),
      start_(steady::now()),
      last_line_(start_) {}

progress_lines::~progress_lines() {
    if (open_line_) std::fputc('\n', out_);  // never leave the shell's prompt behind a progress line
}

double progress_lines::elapsed_s() const { return std::chrono::duration<double>(steady::now() - start_).count(); }

void progress_lines::update(const std::string& state) {
    if (finished_) return;
    const bool changed = state != shown_;
    const bool due = !terminal_ && interval_.count() > 0 && steady::now() - last_line_ >= interval_;
    // On a terminal the elapsed time moves every second: the line is rewritten whenever it is asked to be.
    if (changed || due || terminal_) print(state, false);
}

void progress_lines::show(const std::string& state) {
    if (!finished_) print(state, false);
}

void progress_lines::finish(const std::string& state) {
    if (finished_) return;
    print(state, true);
    finished_ = true;
}

void progress_lines::print(const std::string& state, bool last) {
    const double s = elapsed_s();
    if (terminal_) {
        // \x1b[K clears what a longer earlier line left to the right.
        std::fprintf(out_, "\r%s: %s (%.0f s)\x1b[K%s", what_.c_str(), state.c_str(), s, last ? "\n" : "");
        open_line_ = !last;
    } else {
        std::fprintf(out_, "%s: %s, %.1f s elapsed\n", what_.c_str(), state.c_str(), s);
    }
    std::fflush(out_);
    shown_ = state;
    last_line_ = steady::now();
}

progress_heartbeat::progress_heartbeat(std::string what, const progress_options& options, std::FILE* out)
    : lines_(std::move(what), options, out),
      uncaught_(std::uncaught_exceptions()),
      tick_(lines_.terminal() ? std::chrono::seconds(1) : std::chrono::seconds(options.interval_s)) {
    lines_.update("started");
    if (tick_.count() > 0) thread_ = std::thread([this] { run(); });
}

progress_heartbeat::~progress_heartbeat() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    const bool failed = std::uncaught_exceptions() > uncaught_;
    lines_.finish(failed ? "stopped by an error" : "done");
}

void progress_heartbeat::step(const std::string& name) {
    std::lock_guard lock(mutex_);
    step_ = name;
    lines_.update(step_);  // a new step is a change: printed at once
}

void progress_heartbeat::run() {
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, tick_, [this] { return stop_; })) {
        lines_.show(step_.empty() ? "working" : step_);
    }
}

}  // namespace cuzk::cli
