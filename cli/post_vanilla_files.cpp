#include "cli/post_vanilla_files.hpp"

#include <algorithm>
#include <numeric>

#include "cli/file_io.hpp"
#include "common/post/vanilla_bincode.hpp"
#include "common/post/vanilla_shape.hpp"
#include "common/util/errors.hpp"

namespace cuzk::cli {

post_sectors read_post_sectors(const post::registered_post_proof& proof, const std::vector<std::string>& files,
                               const std::string& option) {
    if (files.size() > proof.sector_count)  // before reading any file
        throw input_error(option + ": " + std::to_string(files.size()) + " files; " + std::string(proof.name) +
                          (proof.kind == post::post_kind::winning ? " proves exactly " : " proves at most ") +
                          std::to_string(proof.sector_count) + " sector" + (proof.sector_count == 1 ? "" : "s") +
                          " per partition");
    const post::vanilla_shape shape = post::vanilla_shape_of(proof.sector_size, proof.challenge_count);
    std::vector<post::fallback_sector_proof> decoded;
    decoded.reserve(files.size());
    for (const std::string& file : files)
        decoded.push_back(post::decode_sector_proof(read_file_bytes(file, "vanilla proof"), shape, file));
    std::vector<size_t> order(decoded.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return decoded[a].sector_id < decoded[b].sector_id; });
    post_sectors out;
    out.sectors.reserve(decoded.size());
    out.sources.reserve(decoded.size());
    for (size_t i : order) {
        if (!out.sectors.empty() && out.sectors.back().sector_id == decoded[i].sector_id)
            throw input_error(option + ": " + out.sources.back() + " and " + files[i] + " both prove sector " +
                              std::to_string(decoded[i].sector_id));
        out.sectors.push_back(std::move(decoded[i]));
        out.sources.push_back(files[i]);
    }
    return out;
}

}  // namespace cuzk::cli
