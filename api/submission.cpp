#include "api/submission.hpp"

#include <fmt/format.h>

#include "api/api_error.hpp"
#include "common/c1/seal_commit_phase1.hpp"
#include "common/porep/c1_witness.hpp"
#include "common/porep/public_inputs.hpp"
#include "common/porep/registered_proof.hpp"
#include "common/util/errors.hpp"
#include "common/post/challenges.hpp"
#include "common/post/registered_post_proof.hpp"
#include "common/update/update_shape.hpp"
#include "daemon/post_job_input.hpp"
#include "daemon/request_digest.hpp"
#include "daemon/test_job_input.hpp"
#include "daemon/update_job_input.hpp"

namespace cuzk::api {

namespace {

using v1::ProofKind;

[[noreturn]] void invalid(const std::string& message) { throw api_error(grpc::StatusCode::INVALID_ARGUMENT, message); }

// Go abi RegisteredSealProof 0..9 are rust-fil-proofs' ids 0..9 (StackedDrg*V1, then *V1_1). Later Go numbers
// (synthetic and non-interactive PoRep) are not taken: their numbering was not checked against Go's.
const porep::registered_proof& seal_proof_of(std::uint64_t number) {
    if (number > 9)
        invalid(fmt::format("registered_proof {} is not a RegisteredSealProof this service proves (0..4: "
                            "StackedDrg{{2KiB,8MiB,512MiB,32GiB,64GiB}}V1, 5..9: the same V1_1)",
                            number));
    return porep::registered_proof_by_id(number);
}

// WINDOW_POST_PARTITION and WINNING_POST: registered_proof is the Go abi RegisteredPoStProof (Winning 0..4,
// Window V1 5..9, V1_1 10..14) of the kind; randomness 32 bytes, a field element; one partition a request
// (partition_index 0, as Curio sends); 1 .. the proof's sector count vanilla proofs. Their bytes are decoded
// and verified by assemblerd's input check (daemon/post_job_input.hpp), which names the sector and offset.
std::string post_payload(const v1::SubmitProofRequest& r, int kind) {
    const post::registered_post_proof* proof = nullptr;
    try {
        proof = &post::registered_post_proof_by_id(r.registered_proof());
    } catch (const input_error& e) {
        invalid(fmt::format("registered_proof {} is not a RegisteredPoStProof (0..4 Winning, 5..14 Window): {}",
                            r.registered_proof(), e.what()));
    }
    const bool winning = proof->kind == post::post_kind::winning;
    if (winning != (kind == v1::WINNING_POST))
        invalid(fmt::format("registered_proof {} is {}, not a {} proof", r.registered_proof(), proof->name,
                            kind == v1::WINNING_POST ? "WinningPoSt" : "WindowPoSt"));
    if (r.sector_size() != 0 && r.sector_size() != proof->sector_size)
        invalid(fmt::format("sector_size {} does not match registered_proof {} ({}: {} bytes)", r.sector_size(),
                            r.registered_proof(), proof->name, proof->sector_size));
    if (r.randomness().size() != 32)
        invalid(fmt::format("randomness is {} bytes; PoSt needs 32", r.randomness().size()));
    post::bytes32 randomness{};
    std::copy(r.randomness().begin(), r.randomness().end(), randomness.begin());
    try {
        post::check_randomness(randomness, "randomness");
    } catch (const input_error& e) {
        invalid(e.what());
    }
    if (r.partition_index() != 0)
        invalid(fmt::format("partition_index {}: one WindowPoSt partition a request, sent as partition 0 with that "
                            "partition's sectors (as Curio does)",
                            r.partition_index()));
    if (r.vanilla_proofs_size() == 0 || static_cast<std::uint64_t>(r.vanilla_proofs_size()) > proof->sector_count)
        invalid(fmt::format("vanilla_proofs has {} entries; {} takes {}", r.vanilla_proofs_size(), proof->name,
                            winning ? std::string("exactly 1") : fmt::format("1 to {}", proof->sector_count)));
    const std::vector<std::string_view> proofs(r.vanilla_proofs().begin(), r.vanilla_proofs().end());
    return daemon::encode_post_job_input(*proof, randomness, proofs);
}

// SNAP_DEALS_UPDATE: registered_proof is the Go abi RegisteredUpdateProof (StackedDrg{2KiB..64GiB}V1 0..4);
// comm_r_old, comm_d_new, comm_r_new 32 raw bytes each, field elements; exactly the proof's partition count of
// vanilla proofs (16 at 32 and 64 GiB), partition order; h the sector size's default (Curio sends none, and
// filecoin-proofs proves with it). Their bytes are decoded and checked natively by assemblerd's input check
// (daemon/update_job_input.hpp), which names the partition, challenge and byte offset.
std::string update_payload(const v1::SubmitProofRequest& r) {
    const update::registered_update_proof* proof = nullptr;
    try {
        proof = &update::registered_update_proof_by_id(r.registered_proof());
    } catch (const input_error& e) {
        invalid(fmt::format("registered_proof {} is not a RegisteredUpdateProof (0..4: StackedDrg{{2KiB,8MiB,512MiB,"
                            "32GiB,64GiB}}V1): {}",
                            r.registered_proof(), e.what()));
    }
    if (r.sector_size() != 0 && r.sector_size() != proof->sector_size)
        invalid(fmt::format("sector_size {} does not match registered_proof {} ({}: {} bytes)", r.sector_size(),
                            r.registered_proof(), proof->name, proof->sector_size));
    auto commitment = [&](const std::string& bytes, const char* name) {
        if (bytes.size() != 32)
            invalid(fmt::format("{} is {} bytes; a SnapDeals update needs its 32 raw bytes", name, bytes.size()));
        daemon::bytes32 out{};
        std::copy(bytes.begin(), bytes.end(), out.begin());
        ff::fr_t value;
        if (!ff::fr_t::from_bytes_le(out.data(), value))
            invalid(fmt::format("{} is not a field element (its 32 bytes, little-endian, are >= r)", name));
        return out;
    };
    const auto comm_r_old = commitment(r.comm_r_old(), "comm_r_old");
    const auto comm_d_new = commitment(r.comm_d_new(), "comm_d_new");
    const auto comm_r_new = commitment(r.comm_r_new(), "comm_r_new");
    if (r.partition_index() != 0)
        invalid(fmt::format("partition_index {}: a SnapDeals request proves every partition of the update (send 0)",
                            r.partition_index()));
    const auto shape = proof->shape();
    if (static_cast<std::uint64_t>(r.vanilla_proofs_size()) != shape.partition_count)
        invalid(fmt::format("vanilla_proofs has {} entries; {} takes exactly {} (one bincode PartitionProof per "
                            "partition, in partition order)",
                            r.vanilla_proofs_size(), proof->name, shape.partition_count));
    if (!r.vanilla_proof().empty())
        invalid("vanilla_proof is set: a SnapDeals request sends its partition proofs in vanilla_proofs");
    const std::vector<std::string_view> proofs(r.vanilla_proofs().begin(), r.vanilla_proofs().end());
    return daemon::encode_update_job_input(*proof, shape.h_default(), comm_r_old, comm_d_new, comm_r_new, proofs);
}

void check_porep(const v1::SubmitProofRequest& r) {
    const auto& proof = seal_proof_of(r.registered_proof());
    if (r.sector_size() != 0 && r.sector_size() != proof.sector_size)
        invalid(fmt::format("sector_size {} does not match registered_proof {} ({}: {} bytes)", r.sector_size(),
                            r.registered_proof(), proof.name, proof.sector_size));
    if (r.vanilla_proof().empty()) invalid("vanilla_proof is empty: PoRep needs Curio's C1 wrapper JSON there");
    c1::seal_commit_phase1_output c1;
    try {
        c1 = c1::parse_c1_json(r.vanilla_proof(), "vanilla_proof");
    } catch (const input_error& e) {
        invalid(e.what());
    }
    if (c1.registered_proof != proof.name)
        invalid(fmt::format("vanilla_proof holds a C1 of {}, but registered_proof {} is {}", c1.registered_proof,
                            r.registered_proof(), proof.name));
    if (r.miner_id() == 0) return;
    porep::seal_public_inputs in;
    try {
        in = porep::public_inputs_of(c1);
    } catch (const input_error& e) {
        invalid(fmt::format("vanilla_proof: {}", e.what()));
    }
    const auto replica = porep::generate_replica_id(prover_id_of(r.miner_id()), r.sector_number(), c1.ticket, c1.comm_d,
                                                    proof.porep_id());
    if (!(replica == in.replica_id))
        invalid(fmt::format("miner_id {} and sector_number {} do not match the C1 in vanilla_proof: its replica id "
                            "was sealed by another prover or for another sector",
                            r.miner_id(), r.sector_number()));
}

std::string digest_of(const v1::SubmitProofRequest& r) {
    daemon::request_digest d;
    d.add(static_cast<std::uint64_t>(r.proof_kind()))
        .add(r.sector_size())
        .add(r.registered_proof())
        .add(static_cast<std::uint64_t>(r.priority()))
        .add(r.vanilla_proof())
        .add(static_cast<std::uint64_t>(r.vanilla_proofs_size()));
    for (const auto& v : r.vanilla_proofs()) d.add(v);
    d.add(r.sector_number()).add(r.miner_id()).add(r.randomness()).add(std::uint64_t{r.partition_index()});
    d.add(r.comm_r_old()).add(r.comm_r_new()).add(r.comm_d_new());
    return d.hex();
}

}  // namespace

std::string kind_name(int kind) {
    if (kind == test_circuit_kind) return fmt::format("{} (the built-in test circuits)", kind);
    if (v1::ProofKind_IsValid(kind)) return fmt::format("{} ({})", v1::ProofKind_Name(static_cast<ProofKind>(kind)), kind);
    return fmt::format("{} (unknown)", kind);
}

std::int32_t internal_priority(v1::Priority p, v1::ProofKind kind) {
    if (p == v1::PRIORITY_UNSPECIFIED) {
        p = kind == v1::WINNING_POST ? v1::CRITICAL : kind == v1::WINDOW_POST_PARTITION ? v1::HIGH : v1::NORMAL;
    }
    return (static_cast<std::int32_t>(p) - static_cast<std::int32_t>(v1::NORMAL)) * 100;
}

std::array<std::uint8_t, 32> prover_id_of(std::uint64_t miner_id) {
    std::array<std::uint8_t, 32> out{};
    std::size_t i = 0;
    do {
        auto byte = static_cast<std::uint8_t>(miner_id & 0x7f);
        miner_id >>= 7;
        if (miner_id) byte |= 0x80;
        out[i++] = byte;
    } while (miner_id);
    return out;
}

submission check_submission(const v1::SubmitProofRequest& r) {
    const int kind = r.proof_kind();
    if (!v1::Priority_IsValid(r.priority()))
        invalid(fmt::format("priority {} is not a Priority (0 UNSPECIFIED, 1 LOW .. 4 CRITICAL)", r.priority()));
    submission s;
    s.request_id = r.request_id();
    if (s.request_id.size() > 256) invalid(fmt::format("request_id is {} bytes; at most 256", s.request_id.size()));
    switch (kind) {
        case v1::POREP_SEAL_COMMIT:
            check_porep(r);
            s.kind = ipc::proof_kind::porep_c2;
            s.payload = r.vanilla_proof();
            break;
        case v1::WINDOW_POST_PARTITION:
        case v1::WINNING_POST:
            s.payload = post_payload(r, kind);
            s.kind = kind == v1::WINNING_POST ? ipc::proof_kind::winning_post : ipc::proof_kind::window_post;
            break;
        case v1::SNAP_DEALS_UPDATE:
            s.payload = update_payload(r);
            s.kind = ipc::proof_kind::snap_update;
            break;
        case test_circuit_kind:
            try {
                (void)daemon::parse_test_job_input(r.vanilla_proof(), "vanilla_proof");
            } catch (const input_error& e) {
                invalid(e.what());
            }
            s.kind = ipc::proof_kind::test_circuit;
            s.payload = r.vanilla_proof();
            break;
        default:
            invalid(fmt::format("proof_kind {} is not one this service takes (1 POREP_SEAL_COMMIT, 2 "
                                "SNAP_DEALS_UPDATE, 3 WINDOW_POST_PARTITION, 4 WINNING_POST)",
                                kind_name(kind)));
    }
    s.priority = internal_priority(r.priority(), static_cast<v1::ProofKind>(kind));
    s.digest = digest_of(r);
    return s;
}

}  // namespace cuzk::api
