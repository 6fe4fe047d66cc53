// PARAMS_REQUEST on gpud's socket, and the preloads of [gpud] preload. A preload loads on a thread of its own (a
// published 32 GiB set takes minutes, while the loop goes on answering STATUS_REQUEST and sending proofs); its
// reply waits in a queue that the loop sends from. An evict is answered at once; the store's reference is dropped
// on a thread too, since the last reference frees the backend's device copy and tens of GiB of host memory (the
// memory goes with the last partition proving with the set, if any is).
// A spec that names no circuit, or a PoRep set whose files are missing, is an ERROR_REPLY bad_request naming
// what was looked for; a load abandoned as gpud stops (params_store::abandon_loads) is unavailable; any other
// failure of a load is internal.
#pragma once

#include <atomic>
#include <functional>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include <zmq.hpp>

#include "daemon/params_store.hpp"
#include "daemon/request_router.hpp"
#include "ipc/messages.hpp"

namespace cuzk::gpud {

class params_requests {
public:
    // |on_loaded|: called on the preload's thread once the store has the set (gpud: the backend's preload).
    using loaded_hook = std::function<void(const daemon::params_store::lookup&)>;
    params_requests(daemon::params_store& store, loaded_hook on_loaded)
        : store_(store), on_loaded_(std::move(on_loaded)) {}
    ~params_requests() { join_all(); }
    params_requests(const params_requests&) = delete;
    params_requests& operator=(const params_requests&) = delete;

    // Loop thread: an evict is answered through |router| now, a preload started.
    void take(std::vector<zmq::message_t> envelope, const ipc::params_request_msg& m, daemon::request_router& router);
    // Loop thread: the sets of [gpud] preload (circuit specs, in daemon::gpud_preload_specs' order: WinningPoSt's
    // first), loaded as gpud starts on one thread, one after another, nobody waiting for them. One at a time because a set takes its whole size in host memory while it loads
    // (51 GB for the 32 GiB PoRep set, 65 GB for WindowPoSt's), which the CUDA backend gives back once the points
    // are on a GPU with room for them: loaded at once, two such sets would need the sum, and the second be refused
    // on a host that has room for either. Each outcome is logged, a failure as an error (the set is then loaded by
    // the first partition that needs it); once gpud stops, the rest are not loaded.
    void start_configured(std::vector<std::string> circuits);
    // Loop thread: the replies of the preloads done since, sent; their threads joined.
    void send_done(daemon::request_router& router);
    // Waits for every thread (at shutdown, after the store abandoned its loads: a preload gives up within
    // milliseconds, except a backend upload under way, which ends first).
    void join_all();

private:
    struct task {
        std::thread thread;
        std::atomic<bool> done{false};
    };
    struct reply {
        std::vector<zmq::message_t> envelope;
        ipc::message body;
    };
    template <class F>
    void spawn(F&& body);

    daemon::params_store& store_;
    loaded_hook on_loaded_;
    std::list<task> tasks_;  // loop thread only
    std::mutex replies_mutex_;
    std::vector<reply> replies_;  // preloads done, not yet sent
};

}  // namespace cuzk::gpud
