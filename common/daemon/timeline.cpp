#include "common/daemon/timeline.hpp"

#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <mutex>

namespace cuzk::timeline {

namespace {

// The separators of the line format; any of them inside a token would split or merge fields.
bool is_separator(char c) { return c == ',' || c == '=' || c == '\n' || c == '\r'; }

void append_token(std::string& out, std::string_view token) {
    for (char c : token) out.push_back(is_separator(c) ? '_' : c);
}

std::mutex sink_mutex;
line_sink test_sink;  // guarded by sink_mutex; empty: stderr

void write_stderr(std::string_view line) {
    // One write(2) per line; retry only what EINTR or a short write (a full pipe) left behind.
    const char* p = line.data();
    std::size_t left = line.size();
    while (left > 0) {
        ssize_t n = ::write(STDERR_FILENO, p, left);
        if (n < 0) {
            if (errno == EINTR) continue;
            return;  // stderr closed: a timeline line is diagnostics, never worth failing the job for
        }
        p += n;
        left -= static_cast<std::size_t>(n);
    }
}

}  // namespace

std::int64_t now_ms() {
    timespec ts{};
    ::clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1'000'000;
}

std::string format_line(std::int64_t ms, std::string_view event, std::string_view job,
                        std::initializer_list<field> fields) {
    std::string line;
    line.reserve(48 + job.size() + 16 * fields.size());
    line += "TIMELINE,";
    line += std::to_string(ms);
    line += ',';
    append_token(line, event);
    line += ',';
    append_token(line, job);
    for (const field& f : fields) {
        line += ',';
        append_token(line, f.key);
        line += '=';
        append_token(line, f.value);
    }
    return line;
}

void emit(std::string_view event, std::string_view job, std::initializer_list<field> fields) {
    emit_at(now_ms(), event, job, fields);
}

void emit_at(std::int64_t ms, std::string_view event, std::string_view job, std::initializer_list<field> fields) {
    std::string line = format_line(ms, event, job, fields);
    line += '\n';
    {
        std::lock_guard lock(sink_mutex);
        if (test_sink) {
            test_sink(line);
            return;
        }
    }
    write_stderr(line);
}

void set_sink(line_sink sink) {
    std::lock_guard lock(sink_mutex);
    test_sink = std::move(sink);
}

}  // namespace cuzk::timeline
