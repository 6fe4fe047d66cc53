// Whole-file reads and writes for the CLI, with errors that name the file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <vector>

namespace cuzk::cli {

// Throws cuzk::input_error "<path>: cannot open ..." when the file is missing or unreadable, permission_denied
// (cli/client_errors.hpp) naming the refusing path and the fix when this user may not read it.
std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path, const char* what);
// Writes through a temporary file and a rename, so a reader never sees half a file. A directory this user may
// not write into throws permission_denied.
void write_file_atomically(const std::filesystem::path& path, std::span<const uint8_t> bytes);

}  // namespace cuzk::cli
