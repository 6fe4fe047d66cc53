#include "cli/update_vanilla_files.hpp"

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_arg.hpp"
#include "common/update/vanilla_bincode.hpp"
#include "common/update/vanilla_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

update::update_commitments update_commitments_of(const update::update_shape& shape, const std::string& comm_r_old,
                                                 const std::string& comm_d_new, const std::string& comm_r_new,
                                                 const std::string& h) {
    return {parse_fr_hex("--comm-r-old", comm_r_old), parse_fr_hex("--comm-d-new", comm_d_new),
            parse_fr_hex("--comm-r-new", comm_r_new), update_h_arg(shape, h)};
}

std::vector<update::update_partition_circuit> read_update_partitions(const update::registered_update_proof& proof,
                                                                     const std::vector<std::string>& files,
                                                                     const update::update_commitments& pub,
                                                                     const std::string& option) {
    const update::update_shape shape = proof.shape();
    if (files.size() != shape.partition_count)  // before reading any file
        throw input_error(option + ": " + std::to_string(files.size()) + " files; " + std::string(proof.name) +
                          " proves " + std::to_string(shape.partition_count) + " partition" +
                          (shape.partition_count == 1 ? "" : "s") +
                          ", one vanilla PartitionProof file each, in partition order");
    const update::update_vanilla_shape vshape = update::update_vanilla_shape_of(proof.nodes());
    std::vector<update::partition_proof> partitions;
    partitions.reserve(files.size());
    for (size_t k = 0; k < files.size(); ++k)
        partitions.push_back(
            update::decode_partition_proof(read_file_bytes(files[k], "vanilla proof"), vshape, k, files[k]));
    return update::partition_circuits_of(proof, partitions, pub, files);
}

}  // namespace cuzk::cli
