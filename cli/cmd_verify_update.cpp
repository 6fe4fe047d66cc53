// cuzk verify-update: checks a SnapDeals update proof as filecoin-proofs' verify_empty_sector_update_proof does.
// The verifier recomputes each partition's public inputs from the flags (k_and_h_select = k | h_select <<
// partition_bit_len, comm_r_old, comm_d_new, comm_r_new; public_inputs.hpp), then makes one Groth16 check per
// 192-byte partition proof, partitions in order. Prints "valid" (exit 0) or "invalid" (exit 1); bad flags, files or
// encodings (a proof of another length, hex that is not 32 bytes or not a field element, an unknown registered
// proof, an h the size does not allow) exit 2.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/hex_arg.hpp"
#include "cli/partition_proofs.hpp"
#include "common/groth16/proof.hpp"
#include "common/groth16/verifier.hpp"
#include "common/update/public_inputs.hpp"
#include "common/update/update_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

namespace {

struct verify_update_options {
    std::string vk, registered_proof, comm_r_old, comm_r_new, comm_d_new, h, proof;
};

bool verify_update(const verify_update_options& o) {
    const update::registered_update_proof& proof = update::registered_update_proof_by_name(o.registered_proof);
    const update::update_shape shape = proof.shape();
    const unsigned h = update_h_arg(shape, o.h);
    const ff::fr_t comm_r_old = parse_fr_hex("--comm-r-old", o.comm_r_old);
    const ff::fr_t comm_r_new = parse_fr_hex("--comm-r-new", o.comm_r_new);
    const ff::fr_t comm_d_new = parse_fr_hex("--comm-d-new", o.comm_d_new);

    const groth16::verifying_key vk =
        read_vk_for(o.vk, update::generate_public_inputs(shape, 0, h, comm_r_old, comm_d_new, comm_r_new).size(),
                    proof.name, "another circuit");
    const std::vector<groth16::proof> proofs =
        read_partition_proofs(o.proof, shape.partition_count, std::string(proof.name) + " makes");
    const auto pvk = groth16::prepare_verifying_key(vk);
    for (unsigned k = 0; k < shape.partition_count; ++k)
        if (!groth16::verify_proof(pvk, proofs[k],
                                   update::generate_public_inputs(shape, k, h, comm_r_old, comm_d_new, comm_r_new)))
            return false;
    return true;
}

}  // namespace

void add_verify_update_command(CLI::App& app, action& run) {
    auto o = std::make_shared<verify_update_options>();
    auto* cmd = app.add_subcommand("verify-update",
                                   "Verify a SnapDeals update proof (as filecoin-proofs "
                                   "verify_empty_sector_update_proof)");
    cmd->add_option("--vk", o->vk, "verifying key (.vk, bellperson format)")->required();
    cmd->add_option("--registered-proof", o->registered_proof,
                    "e.g. StackedDrgUpdate32GiBV1 (" + update::registered_update_proof_names() + ")")
        ->required();
    cmd->add_option("--comm-r-old", o->comm_r_old, "the sector key's comm_r: 32 bytes hex as stored")->required();
    cmd->add_option("--comm-r-new", o->comm_r_new, "the updated replica's comm_r: 32 bytes hex as stored")
        ->required();
    cmd->add_option("--comm-d-new", o->comm_d_new, "the new data's comm_d: 32 bytes hex as stored")->required();
    cmd->add_option("--h", o->h, "the update's h (default the sector size's: 10 above 32 KiB, as filecoin-proofs)");
    cmd->add_option("--proof", o->proof, "proof file (192 bytes per partition, partitions in order)")->required();
    cmd->callback([o, &run] {
        run = [o] {
            const bool valid = verify_update(*o);
            std::printf("%s\n", valid ? "valid" : "invalid");
            return valid ? exit_ok : exit_negative;
        };
    });
}

}  // namespace cuzk::cli
