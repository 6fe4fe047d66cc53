// A circuit's R1CS matrices on disk, beside its parameters: recorded once per circuit shape, loaded with the
// parameters. Little-endian, every array at an 8-byte offset (a reader could map the file):
//
//   header (88 bytes): "CUZKR1CS", u32 version, u32 label bytes, u64 circuit_rows, num_inputs, num_aux,
//                      coefficients, a_terms, b_terms, c_terms, payload digest, header digest
//   label:             the circuit's name (e.g. "porep:StackedDrg32GiBV1_1"), zero-padded to 8 bytes
//   coefficients:      32 bytes each, Montgomery form, 4 little-endian limbs
//   A, B, C:           row_start (u64, rows + 1), column (u32, terms), coeff (u16, terms), each zero-padded
//   densities:         a_aux, b_input, b_aux bitmaps (u64 words, ceil(bits / 64) each)
//
// The header digest covers the header's other fields and the label; the payload digest covers every array
// (both are 64-bit, for corruption, not for authenticity). Reading checks magic, version, and that the counts
// give exactly the file's length before allocating anything, then reads straight into the vectors and checks
// the digest and the structure (row starts monotone, columns and coefficient indices in range), so a
// kernel indexing with them cannot read out of bounds. A 32 GiB PoRep partition's is 7.7 GB (matrix_file_bytes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include "common/r1cs/matrix_sizes.hpp"
#include "common/r1cs/r1cs_matrices.hpp"

namespace cuzk::r1cs {

inline constexpr char MATRIX_FILE_MAGIC[8] = {'C', 'U', 'Z', 'K', 'R', '1', 'C', 'S'};
inline constexpr std::uint32_t MATRIX_FILE_VERSION = 1;
inline constexpr std::size_t MATRIX_FILE_HEADER_BYTES = 88;
inline constexpr std::size_t MATRIX_FILE_MAX_LABEL = 4096;

// Byte length of the file of matrices of sizes |s| labelled with |label_bytes| bytes.
std::uint64_t matrix_file_bytes(const matrix_sizes& s, std::size_t label_bytes);

// Writes to "<path>.tmp.<pid>" then renames, so a reader never sees a partial file under |path|. |circuit|
// names what the matrices are of (MATRIX_FILE_MAX_LABEL bytes at most). Throws std::system_error naming the
// path on I/O failure, std::invalid_argument when |m| is not self-consistent.
void write_matrix_file(const std::filesystem::path& path, const r1cs_matrices& m, std::string_view circuit);

struct matrix_file_contents {
    std::string circuit;
    r1cs_matrices matrices;
};

// Throws input_error "R1CS matrix file <path>: <what is wrong>" for a file that is truncated, of another
// format or version, or corrupt; std::system_error naming the path when it cannot be read.
matrix_file_contents read_matrix_file(const std::filesystem::path& path);
// The same, refusing (input_error, naming both) a file recorded for another circuit than |circuit|.
r1cs_matrices read_matrix_file(const std::filesystem::path& path, std::string_view circuit);

}  // namespace cuzk::r1cs
