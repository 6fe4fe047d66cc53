#include "common/util/file_writer.hpp"

#include <cerrno>
#include <stdexcept>
#include <string>
#include <system_error>

namespace cuzk::util {

file_writer::file_writer(const std::filesystem::path& path) : path_(path), f_(std::fopen(path.c_str(), "wb")) {
    if (!f_) fail("cannot create");
}

file_writer::~file_writer() {
    if (f_) std::fclose(f_);
}

void file_writer::write(const void* data, std::size_t n) {
    if (n != 0 && std::fwrite(data, 1, n, f_) != n) fail("cannot write");
}

void file_writer::close() {
    if (!f_) throw std::logic_error("file_writer: " + path_.string() + " closed twice");
    std::FILE* f = f_;
    f_ = nullptr;
    if (std::fclose(f) != 0) fail("cannot close");
}

void file_writer::fail(const char* what) const {
    throw std::system_error(errno, std::generic_category(), std::string(what) + " " + path_.string());
}

}  // namespace cuzk::util
