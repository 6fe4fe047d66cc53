#include "cli/file_io.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "cli/access_check.hpp"
#include "cli/client_errors.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

bool permission_errno(int e) { return e == EACCES || e == EPERM; }

}  // namespace

std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in && permission_errno(errno))
        throw permission_denied(std::string(what) + ": " + permission_message(path, access_need::read));
    if (!in) throw input_error(path.string() + ": cannot open " + what + ": " + std::strerror(errno));
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return bytes;
}

void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
    std::filesystem::path tmp = path;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out && permission_errno(errno)) throw permission_denied(permission_message(tmp, access_need::write));
        if (!out) throw input_error(path.string() + ": cannot create: " + std::strerror(errno));
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        if (!out) throw std::runtime_error(path.string() + ": write failed: " + std::strerror(errno));
    }
    std::filesystem::rename(tmp, path);
}

}  // namespace cuzk::cli
