#include "cli/file_io.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "common/util/errors.hpp"

namespace cuzk::cli {

std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path, const char* what) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw input_error(path.string() + ": cannot open " + what + ": " + std::strerror(errno));
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return bytes;
}

void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes) {
    std::filesystem::path tmp = path;
    tmp += ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw input_error(path.string() + ": cannot create: " + std::strerror(errno));
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        if (!out) throw std::runtime_error(path.string() + ": write failed: " + std::strerror(errno));
    }
    std::filesystem::rename(tmp, path);
}

}  // namespace cuzk::cli
