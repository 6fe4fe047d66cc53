// A SnapDeals update's partitions read from files as Curio hands them over (one bincode PartitionProof per file,
// in partition order, common/update/vanilla_bincode.hpp) with the update's public values from the command line,
// for the commands that build its circuits in one process (prove-update, circuit-info --scalar-census): the
// count checked before any file is read, each file decoded against the sector size's shape, every partition
// checked natively against the public values.
#pragma once

#include <string>
#include <vector>

#include "common/update/update_circuit.hpp"
#include "common/update/vanilla_encoding.hpp"

namespace cuzk::cli {

// The hex texts of --comm-r-old, --comm-d-new and --comm-r-new (32 bytes as stored) and --h (empty: the
// sector size's default), parsed and checked. Throws input_error naming the flag.
update::update_commitments update_commitments_of(const update::update_shape& shape, const std::string& comm_r_old,
                                                 const std::string& comm_d_new, const std::string& comm_r_new,
                                                 const std::string& h);

// One circuit per partition, in partition order. Throws input_error naming |option|, the file, the partition and
// what is wrong (a count other than the registered proof's partitions, a file that does not decode or verify).
std::vector<update::update_partition_circuit> read_update_partitions(const update::registered_update_proof& proof,
                                                                     const std::vector<std::string>& files,
                                                                     const update::update_commitments& pub,
                                                                     const std::string& option);

}  // namespace cuzk::cli
