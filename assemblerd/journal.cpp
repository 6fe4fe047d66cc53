#include "assemblerd/journal.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/crc.hpp>

#include <cerrno>
#include <charconv>
#include <fstream>
#include <optional>
#include <string_view>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace cuzk::assemblerd {

namespace {

// A record's fields, space-separated.
std::string body_of(const journal_record& r) {
    std::string body;
    for (const auto& f : r) {
        if (!body.empty()) body += ' ';
        body += f;
    }
    return body;
}

std::uint32_t crc32_of(std::string_view body) {
    boost::crc_32_type crc;
    crc.process_bytes(body.data(), body.size());
    return crc.checksum();
}

// A framed line: '~', the body's length in bytes, ':', its CRC-32 as 8 hex digits, ' ', the body, '\n'.
std::string frame(const journal_record& r) {
    const auto body = body_of(r);
    return fmt::format("~{}:{:08x} {}\n", body.size(), crc32_of(body), body);
}

// The body of a framed line when its length and checksum hold; nullopt for a record cut short or damaged.
std::optional<std::string_view> unframe(std::string_view line) {
    const auto colon = line.find(':'), space = line.find(' ');
    if (colon == std::string_view::npos || space != colon + 9 || colon < 2) return std::nullopt;
    std::size_t len = 0;
    std::uint32_t crc = 0;
    const auto len_text = line.substr(1, colon - 1), crc_text = line.substr(colon + 1, 8);
    if (std::from_chars(len_text.data(), len_text.data() + len_text.size(), len).ptr != len_text.data() + len_text.size())
        return std::nullopt;
    if (std::from_chars(crc_text.data(), crc_text.data() + 8, crc, 16).ptr != crc_text.data() + 8) return std::nullopt;
    const auto body = line.substr(space + 1);
    if (body.size() != len || crc32_of(body) != crc) return std::nullopt;
    return body;
}

void write_all(int fd, const std::string& data, const std::filesystem::path& path) {
    std::size_t done = 0;
    while (done < data.size()) {
        const auto n = ::write(fd, data.data() + done, data.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw std::system_error(errno, std::generic_category(), "writing the journal " + path.string());
        }
        done += static_cast<std::size_t>(n);
    }
}

void sync_dir(const std::filesystem::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
}

}  // namespace

journal::journal(std::filesystem::path path) : path_(std::move(path)) { open_for_append(); }

journal::~journal() {
    if (fd_ >= 0) ::close(fd_);
}

void journal::open_for_append() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "opening the journal " + path_.string());
    torn_at_ = torn_tail(fd_);
}

// Where a last line without its newline begins (a write a crash cut short: never acknowledged), so that the
// first append cuts it off instead of gluing onto it; -1 when the file ends with a whole line.
off_t journal::torn_tail(int fd) {
    off_t end = ::lseek(fd, 0, SEEK_END);
    if (end <= 0) return -1;
    char last = 0;
    if (::pread(fd, &last, 1, end - 1) != 1 || last == '\n') return -1;
    char chunk[4096];
    while (end > 0) {
        const off_t from = end > off_t(sizeof chunk) ? end - off_t(sizeof chunk) : 0;
        const auto n = ::pread(fd, chunk, static_cast<std::size_t>(end - from), from);
        if (n <= 0) return -1;
        for (auto i = n; i > 0; --i)
            if (chunk[i - 1] == '\n') return from + i;
        end = from;
    }
    return 0;
}

std::uint64_t journal::bytes() const {
    struct stat st {};
    return fd_ >= 0 && ::fstat(fd_, &st) == 0 ? static_cast<std::uint64_t>(st.st_size) : 0;
}

void journal::append(const journal_record& record) {
    // A rewrite that renamed the new journal into place but could not open it left no file to append to: opened
    // here (or the error is the caller's, nothing acted on), never the old file, which is no longer the journal.
    if (fd_ < 0) open_for_append();
    // All or nothing: a record cut short by a failed write (ENOSPC, EIO) is cut off the file again, so the
    // next append does not glue onto it. Where even that fails, the next record starts on a line of its own
    // and replay drops the damaged one by its frame. Nothing was acted on: the caller gets the error.
    if (torn_at_ >= 0 && ::ftruncate(fd_, torn_at_) == 0) torn_at_ = -1;
    const off_t end = ::lseek(fd_, 0, SEEK_END);
    std::string line = torn_at_ >= 0 ? "\n" : "";
    line += frame(record);
    try {
        write_all(fd_, line, path_);
        if (::fdatasync(fd_) != 0)
            throw std::system_error(errno, std::generic_category(), "fdatasync of the journal " + path_.string());
        torn_at_ = -1;  // written whole: any damaged bytes before it now end a line of their own
    } catch (const std::system_error& e) {
        if (end >= 0 && ::ftruncate(fd_, end) != 0 && torn_at_ < 0) torn_at_ = end;
        throw std::system_error(e.code(), fmt::format("the journal {} did not take the {} record (nothing was "
                                                      "acted on; free space and retry)",
                                                      path_.string(), record.empty() ? "" : record[0]));
    }
}

void journal::replay(const std::filesystem::path& path, const std::function<void(const journal_record&)>& apply) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return;  // no journal yet: a fresh spool
    std::ostringstream all;
    all << in.rdbuf();
    const std::string text = all.str();
    std::size_t at = 0, line_no = 0;
    while (at < text.size()) {
        ++line_no;
        const auto nl = text.find('\n', at);
        if (nl == std::string::npos) {
            spdlog::warn("{}:{}: last record is incomplete (a write cut short by a crash): dropped", path.string(),
                         line_no);
            break;
        }
        std::string_view line(text.data() + at, nl - at);
        at = nl + 1;
        if (!line.empty() && line[0] == '~') {
            const auto body = unframe(line);
            if (!body) {
                // A record whose write failed (it was never acted on), or damage: either way not a record.
                spdlog::warn("{}:{}: a record cut short or damaged (its length or checksum does not match): "
                             "dropped", path.string(), line_no);
                continue;
            }
            line = *body;
        }
        // Lines without a frame are records of journals written before records were framed.
        std::istringstream fields{std::string(line)};
        journal_record r;
        for (std::string f; fields >> f;) r.push_back(std::move(f));
        if (r.empty()) continue;
        try {
            apply(r);
        } catch (const std::exception& e) {
            throw std::runtime_error(fmt::format("{}:{}: corrupt journal record '{}': {}", path.string(), line_no,
                                                 r[0], e.what()));
        }
    }
}

void journal::rewrite(const std::vector<journal_record>& records) {
    const auto tmp = path_.string() + ".tmp";
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) throw std::system_error(errno, std::generic_category(), "creating " + tmp);
    std::string data;
    for (const auto& r : records) data += frame(r);
    try {
        write_all(fd, data, tmp);
        if (::fsync(fd) != 0) throw std::system_error(errno, std::generic_category(), "fsync of " + tmp);
    } catch (...) {
        ::close(fd);
        ::unlink(tmp.c_str());  // the journal itself is untouched
        throw;
    }
    ::close(fd);
    std::filesystem::rename(tmp, path_);
    sync_dir(path_.parent_path());
    open_for_append();
}

}  // namespace cuzk::assemblerd
