// The PoSt job input container (daemon/post_job_input.cpp, "cuzk-post-job 1\n", the registered PoSt proof,
// randomness, then length-prefixed vanilla proofs), as assemblerd reads a spooled PoSt job at submission and
// synthd reads it again: the header alone (parse_post_job_header), then the whole file, every vanilla proof
// decoded and verified and the partition's public inputs derived (parse_post_job_input).
// Invariants: only cuzk::input_error escapes; the header reader and the full reader agree (a header refused
// alone is refused whole; an input taken whole has the header's proof and count); a taken input has 1 .. the
// proof's sector count sectors and the partition's number of public inputs.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include "daemon/post_job_input.hpp"
#include "common/util/errors.hpp"
#include "support/invariant.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cuzk;
    const std::span<const std::uint8_t> bytes(data, size);
    std::optional<std::pair<const post::registered_post_proof*, std::uint64_t>> header;
    try {
        header = daemon::parse_post_job_header(bytes, "fuzz input");
    } catch (const input_error&) {
    }
    daemon::post_job_input in;
    try {
        in = daemon::parse_post_job_input(bytes, "fuzz input", false);
    } catch (const input_error&) {
        return 0;
    }
    fuzz::check(header.has_value(), "parse_post_job_input takes an input whose header parse_post_job_header refuses");
    fuzz::check(in.proof == header->first && in.sectors == header->second,
                "parse_post_job_input and parse_post_job_header disagree on the proof or the count");
    fuzz::check(in.sectors >= 1 && in.sectors <= in.proof->sector_count, "a taken input's sector count is out of range");
    fuzz::check(in.public_inputs.size() == in.proof->public_inputs_per_partition(),
                "a taken input's public inputs are not the partition's number");
    return 0;
}
