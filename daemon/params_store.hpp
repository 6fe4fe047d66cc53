// The parameters a gpud proves with, loaded once and kept resident across partitions and jobs, one copy per
// .params file (params_files.hpp finds it): a V1 and a V1_1 PoRep over the published file share one.
// A missing PoRep file is an error naming the files looked for (never generated here; but see the test facility
// below). For the built-in test circuits a missing pair is generated (random toxic waste: tests and demo only;
// logged as such), .vk first, so that whoever finds a .params also finds its .vk; processes that miss the same pair
// at once (the gpuds of several GPUs) take turns on an flock of <params_dir>/<stem>.lock, so one generates and the
// others load its files.
// With each set go its circuit's R1CS matrices (common/r1cs/), from which gpud computes a partition's rows:
// <params stem>.r1cs beside the .params; a missing file is recorded (one blank synthesis of the circuit: minutes
// and ~13 GB at 32 GiB, once) and written there for next time, or kept in memory where the directory is not
// writable. A matrix file that does not fit its parameters is an error naming both files.
// TEST FACILITY: with missing_official::synthetic ([gpud] synthetic_params), a PoRep or PoSt set whose .params file
// is missing
// is built in memory from pseudo-random points of the exact sizes (synthetic_params.hpp; never written to disk, no
// .vk either; resident until evicted, whatever files appear meanwhile): proofs made with it are NOT valid, for
// timing real sizes only ([assemblerd] verify = false).
// A recorded matrix file is written only where the directory has room for it and 1 GiB more (7.7 GB at 32 GiB).
// A load runs outside the store's lock (a published 32 GiB set takes minutes): callers wanting the same file wait
// for it, the others (and loaded(), for gpud's status) go on.
// A stopping process abandons its loads (abandon_loads): the reading, the recording of the matrices and the building
// of synthetic points give up within milliseconds, so gpud exits in its stop's grace period rather than minutes
// later (systemd would kill it at TimeoutStopSec).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

#include "common/groth16/keys.hpp"
#include "common/r1cs/r1cs_matrices.hpp"
#include "common/util/resources.hpp"
#include "daemon/file_identity.hpp"
#include "daemon/params_files.hpp"

namespace cuzk::daemon {

// Bytes of a parameters object's points (count x point size; the vk left out).
std::uint64_t params_bytes(const groth16::parameters& p);

class params_store {
public:
    // |on_free| is told when a parameters object is freed, its last user gone (after an evict; or when the store
    // goes): gpud frees a backend's device copy of it there. It runs on the thread that dropped the last
    // reference, must not throw, and must not call back into the store.
    using free_hook = std::function<void(const groth16::parameters&)>;
    // What a PoRep or PoSt shape without its .params file gets: an error naming the files looked for, or (a test
    // facility) synthetic parameters.
    enum class missing_official { refused, synthetic };
    explicit params_store(std::filesystem::path dir, free_hook on_free = {},
                          missing_official missing = missing_official::refused)
        : dir_(std::move(dir)), on_free_(std::move(on_free)), memory_probe_(host_memory_available_bytes),
          missing_official_(missing) {}

    struct lookup {
        std::shared_ptr<const groth16::parameters> params;
        std::shared_ptr<const r1cs::r1cs_matrices> matrices;  // of the same circuit
        bool was_loaded = false;    // resident before the call
        std::uint64_t load_us = 0;  // spent in the call: loading, or waiting for another caller's load
    };
    // Loads (or, for a test circuit without files, generates) once per file; throws input_error for a bad, or
    // for PoRep missing, file (naming it) and for a spec that names no circuit.
    lookup get(const std::string& spec);

    struct eviction {
        bool was_loaded = false;
        std::uint64_t freed_bytes = 0;  // params_bytes of the set let go
        // The store's reference, for the caller to drop where a free of tens of GiB may take its time; the
        // memory goes with the last partition proving with it.
        std::shared_ptr<const groth16::parameters> released;
    };
    // Drops the store's reference to the set |spec| resolves to (a later get loads it again). Not loaded, or
    // still loading: was_loaded false. Throws input_error for a registered proof this build does not know.
    eviction evict(const std::string& spec);

    struct resident_set {
        std::string circuit;  // the shape whose get loaded it
        std::filesystem::path file;
        std::uint64_t bytes = 0;
        std::uint64_t users = 0;  // references held beside the store's own (partitions proving with it)
        std::uint64_t load_ms = 0;
        bool synthetic = false;  // random points: its proofs are not valid
    };
    // The resident sets, by file name.
    std::vector<resident_set> loaded() const;
    // The shapes whose sets are being loaded now (a published 32 GiB set takes minutes), by file name.
    std::vector<std::string> loading() const;

    // For a stopping process: the loads under way throw abandoned_error (the reading of the file, the recording of
    // the matrices or the building of synthetic points stops between blocks), and so does every later get of a set
    // not resident, and every caller waiting for a load; the resident sets are still handed out (a partition
    // already proving finishes). Nothing half loaded is kept. Not undone.
    void abandon_loads();

    // How the store asks for the host's available memory before it reads or builds a set (tests give another;
    // the default is host_memory_available_bytes). A set that would not leave HOST_MEMORY_RESERVE of it is
    // refused naming the set, both sizes and what to free, rather than read into memory that is not there (the
    // kernel kills the process as it writes the pages; allocating succeeds anyway).
    using memory_probe = std::function<std::optional<std::uint64_t>()>;
    void set_memory_probe(memory_probe probe) { memory_probe_ = std::move(probe); }

private:
    struct entry {
        std::string circuit;
        std::filesystem::path file;
        std::shared_ptr<const groth16::parameters> params;  // null while loading
        std::shared_ptr<const r1cs::r1cs_matrices> matrices;
        std::uint64_t bytes = 0, load_ms = 0;
        std::optional<file_identity> identity;  // of |file| when it was read (none: generated here, or unreadable)
        bool synthetic = false;
    };
    // The files to read for |shape|; a PoRep shape without any, where synthetic parameters stand in, the
    // published names (the matrices are then recorded under them, fit for the real set too).
    params_files files_of(const std::string& shape) const;
    bool synthesizes(const std::string& shape, const params_files& files) const;
    std::shared_ptr<const groth16::parameters> own(groth16::parameters&& p) const;
    std::shared_ptr<const groth16::parameters> load(const std::string& shape, const params_files& files);
    std::shared_ptr<const groth16::parameters> synthesize(const std::string& shape, const params_files& files,
                                                          const r1cs::r1cs_matrices& matrices);
    // |params| null: matrices for synthetic parameters, made to fit them.
    std::shared_ptr<const r1cs::r1cs_matrices> load_matrices(const std::string& shape, const params_files& files,
                                                             const groth16::parameters* params);
    // Where a set of |shape| is kept in |sets_|, in the order resolve_params_files prefers them.
    std::vector<std::string> keys_of(const std::string& shape) const;

    // Throws std::runtime_error (the partition fails, not retried) where |bytes| for |what| of |shape|'s set
    // |file| do not fit the host's available memory (memory_probe).
    void check_host_room(const std::string& shape, const std::filesystem::path& file, std::uint64_t bytes,
                         const char* what) const;
    // Throws abandoned_error for |shape| once abandon_loads was called.
    void refuse_if_stopping(const std::string& shape) const;

    std::filesystem::path dir_;
    free_hook on_free_;
    memory_probe memory_probe_;
    missing_official missing_official_;
    mutable std::mutex mutex_;
    std::condition_variable loaded_cv_;        // a load ended (done or failed), or the loads were abandoned
    std::stop_source stopping_;                // abandon_loads'; its token goes to every load
    std::map<std::string, entry> sets_;        // by .params path
};

}  // namespace cuzk::daemon
