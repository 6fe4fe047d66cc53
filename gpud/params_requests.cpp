#include "gpud/params_requests.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <stdexcept>
#include <string_view>
#include <utility>
#include <variant>

#include "common/util/errors.hpp"

namespace cuzk::gpud {

namespace {

ipc::error_reply_msg error_reply(ipc::error_code code, std::string text) {
    return {code, static_cast<std::uint8_t>(ipc::message_type::params_request), std::move(text)};
}

// The reply to a preload of |circuit|: the store's answer, or why not. |origin| names who asked, in the log.
ipc::message preload(daemon::params_store& store, const std::string& circuit,
                     const params_requests::loaded_hook& on_loaded, std::string_view origin = "PARAMS_REQUEST") {
    try {
        const auto got = store.get(circuit);
        if (on_loaded) on_loaded(got);
        spdlog::info("{} preload {}: {}", origin, circuit,
                     got.was_loaded ? std::string("resident already")
                                    : fmt::format("loaded in {} ms", got.load_us / 1000));
        return ipc::params_reply_msg{got.was_loaded, got.load_us / 1000, 0};
    } catch (const input_error& e) {
        return error_reply(ipc::error_code::bad_request, e.what());
    } catch (const abandoned_error& e) {  // gpud is stopping
        spdlog::info("{} preload {}: {}", origin, circuit, e.what());
        return error_reply(ipc::error_code::unavailable, e.what());
    } catch (const std::exception& e) {
        return error_reply(ipc::error_code::internal,
                           fmt::format("loading the parameters of {} failed: {}", circuit, e.what()));
    }
}

}  // namespace

template <class F>
void params_requests::spawn(F&& body) {
    auto& t = tasks_.emplace_back();
    t.thread = std::thread([&done = t.done, body = std::forward<F>(body)]() mutable {
        body();
        done.store(true, std::memory_order_release);  // the loop joins the thread after seeing it
    });
}

void params_requests::take(std::vector<zmq::message_t> envelope, const ipc::params_request_msg& m,
                           daemon::request_router& router) {
    if (m.action == ipc::params_action::preload) {
        spawn([this, envelope = std::move(envelope), circuit = m.circuit]() mutable {
            auto body = preload(store_, circuit, on_loaded_);
            std::lock_guard lock(replies_mutex_);
            replies_.push_back({std::move(envelope), std::move(body)});
        });
        return;
    }
    daemon::params_store::eviction evicted;
    try {
        evicted = store_.evict(m.circuit);
    } catch (const input_error& e) {
        return router.reply(envelope, error_reply(ipc::error_code::bad_request, e.what()));
    } catch (const std::exception& e) {
        return router.reply(envelope,
                            error_reply(ipc::error_code::internal,
                                        fmt::format("evicting the parameters of {} failed: {}", m.circuit, e.what())));
    }
    spdlog::info("PARAMS_REQUEST evict {}: {}", m.circuit,
                 evicted.was_loaded ? fmt::format("{} bytes let go", evicted.freed_bytes) : std::string("not loaded"));
    router.reply(envelope, ipc::params_reply_msg{evicted.was_loaded, 0, evicted.freed_bytes});
    if (evicted.released) spawn([released = std::move(evicted.released)]() mutable { released.reset(); });
}

void params_requests::start_configured(std::vector<std::string> circuits) {
    if (circuits.empty()) return;
    spawn([this, circuits = std::move(circuits)] {
        for (const auto& circuit : circuits) {
            const auto body = preload(store_, circuit, on_loaded_, "[gpud]");
            const auto* e = std::get_if<ipc::error_reply_msg>(&body);
            if (e && e->code == ipc::error_code::unavailable) return;  // abandoned as gpud stops, logged above
            if (e)
                spdlog::error("[gpud] preload of {}: {} (the first partition that needs the set loads it again)",
                              circuit, e->text);
        }
    });
}

void params_requests::send_done(daemon::request_router& router) {
    std::vector<reply> ready;
    {
        std::lock_guard lock(replies_mutex_);
        ready.swap(replies_);
    }
    for (auto& r : ready) router.reply(r.envelope, r.body);
    for (auto it = tasks_.begin(); it != tasks_.end();) {
        if (!it->done.load(std::memory_order_acquire)) {
            ++it;
            continue;
        }
        it->thread.join();
        it = tasks_.erase(it);
    }
}

void params_requests::join_all() {
    for (auto& t : tasks_)
        if (t.thread.joinable()) t.thread.join();
    tasks_.clear();
}

}  // namespace cuzk::gpud
