#include "assemblerd/journal.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace cuzk::assemblerd {

namespace {

std::string join(const journal_record& r) {
    std::string line;
    for (const auto& f : r) {
        if (!line.empty()) line += ' ';
        line += f;
    }
    return line + '\n';
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
    fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "opening the journal " + path_.string());
}

void journal::append(const journal_record& record) {
    write_all(fd_, join(record), path_);
    if (::fdatasync(fd_) != 0)
        throw std::system_error(errno, std::generic_category(), "fdatasync of the journal " + path_.string());
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
        std::istringstream fields(text.substr(at, nl - at));
        journal_record r;
        for (std::string f; fields >> f;) r.push_back(std::move(f));
        at = nl + 1;
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
    for (const auto& r : records) data += join(r);
    write_all(fd, data, tmp);
    if (::fsync(fd) != 0) {
        ::close(fd);
        throw std::system_error(errno, std::generic_category(), "fsync of " + tmp);
    }
    ::close(fd);
    std::filesystem::rename(tmp, path_);
    sync_dir(path_.parent_path());
    open_for_append();
}

}  // namespace cuzk::assemblerd
