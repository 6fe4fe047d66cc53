#include "cli/partition_proofs.hpp"

#include "cli/file_io.hpp"
#include "common/groth16/params_file.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

groth16::verifying_key read_vk_for(const std::string& path, size_t public_inputs, std::string_view circuit,
                                   std::string_view other) {
    groth16::verifying_key vk = groth16::read_vk(path);
    const size_t want_ic = public_inputs + 1;
    if (vk.ic.size() != want_ic)
        throw input_error(path + ": the verifying key has " + std::to_string(vk.ic.size()) + " IC points; " +
                          std::string(circuit) + " needs " + std::to_string(want_ic) + " (is this the key of " +
                          std::string(other) + "?)");
    return vk;
}

std::vector<groth16::proof> read_partition_proofs(const std::string& path, uint64_t partitions,
                                                  std::string_view made_of) {
    const auto bytes = read_file_bytes(path, "proof");
    const uint64_t want_bytes = partitions * groth16::PROOF_BYTES;
    if (bytes.size() != want_bytes)
        throw input_error(path + ": " + std::to_string(bytes.size()) + " bytes; " + std::string(made_of) + " " +
                          std::to_string(partitions) + " partition proof(s) of " +
                          std::to_string(groth16::PROOF_BYTES) + " bytes = " + std::to_string(want_bytes));
    try {
        return groth16::proofs_from_bytes(bytes);
    } catch (const groth16::proof_decode_error& e) {
        throw input_error(path + ": " + e.what());
    }
}

}  // namespace cuzk::cli
