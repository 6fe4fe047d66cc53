#include "common/daemon/timeline_log.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/util/errors.hpp"

namespace cuzk::timeline {

namespace {

constexpr std::string_view marker = "TIMELINE,";
constexpr std::int64_t open_end = std::numeric_limits<std::int64_t>::max();
// "Not seen yet" for the per-partition scan (plain integers: g++ 12 warns falsely on optional here).
constexpr std::int64_t unset = std::numeric_limits<std::int64_t>::min();

// Lifecycle rank of the events a partition meets, to order events of one partition that two processes
// logged in the same millisecond. JOB_* have no partition.
const std::map<std::string, int, std::less<>> partition_events = {
    {"SYNTH_START", 1}, {"SYNTH_END", 2}, {"SLOT_READY", 3}, {"GPU_PICKUP", 4}, {"LOCK_WAIT", 5},
    {"GPU_START", 6},   {"GPU_END", 7},   {"TAIL_END", 8},   {"PARTITION_DONE", 9},
};

std::optional<std::int64_t> to_int(std::string_view s) {
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<std::int64_t> int_field(const record& r, std::string_view key) {
    const std::string* v = r.find(key);
    return v ? to_int(*v) : std::nullopt;
}

std::string field_or(const record& r, std::string_view key, std::string fallback) {
    const std::string* v = r.find(key);
    return v ? *v : std::move(fallback);
}

std::string gpu_of(const record& r) { return field_or(r, "gpu", "0"); }

std::size_t find_marker(std::string_view text) {
    for (std::size_t pos = text.find(marker); pos != std::string_view::npos; pos = text.find(marker, pos + 1)) {
        if (pos == 0) return pos;
        unsigned char before = static_cast<unsigned char>(text[pos - 1]);
        if (!std::isalnum(before) && before != '_') return pos;
    }
    return std::string_view::npos;
}

// A ready window: [from, to] during which a partition could have been given to a GPU's lock: READY
// and unclaimed (gpu empty: any GPU), or claimed by a worker of |gpu| and not yet under the lock.
struct ready_window {
    std::int64_t from, to;
    std::string gpu;
};

// Sum of the parts of the disjoint sorted |segments| inside [lo, hi].
std::int64_t clipped(const std::vector<std::pair<std::int64_t, std::int64_t>>& segments, std::int64_t lo,
                     std::int64_t hi) {
    std::int64_t sum = 0;
    for (auto [s, e] : segments) {
        std::int64_t a = std::max(s, lo), b = std::min(e, hi);
        if (b > a) sum += b - a;
    }
    return sum;
}

// GPU_PICKUP and GPU_START claim a READY slot (GPU_START alone where no GPU_PICKUP was logged); the events after
// them until the partition's next SYNTH_*/SLOT_READY are gpud's too.
bool is_gpud_event(std::string_view e) {
    return e == "GPU_PICKUP" || e == "LOCK_WAIT" || e == "GPU_START" || e == "GPU_END" || e == "TAIL_END";
}

// synthd wrote SLOT_READY after the commit that makes the slot READY, and the commit wakes gpud: on a busy host
// gpud's GPU_PICKUP could be stamped first, and the ring wait came out negative (common/daemon/timeline.hpp,
// emit_at: synthd now reads the time before the commit). In logs of such a synthd, a SLOT_READY stamped after the
// claim of its own slot (no other SLOT_READY before that claim) is put back before the claim, at the claim's time:
// the slot was READY by then at the latest. |ready_at| receives those times; returns how late each was stamped.
std::vector<std::pair<const record*, std::int64_t>> put_late_slot_ready_back(
    std::vector<const record*>& events, std::map<const record*, std::int64_t>& ready_at) {
    std::vector<std::pair<const record*, std::int64_t>> late;
    for (std::size_t i = 0; i < events.size(); ++i) {
        const record* ready = events[i];
        if (ready->event != "SLOT_READY") continue;
        const std::string* slot = ready->find("slot");
        std::size_t claim = i;
        std::size_t j = i;
        while (j > 0 && is_gpud_event(events[j - 1]->event)) {
            --j;
            const record* e = events[j];
            const std::string* other = e->find("slot");
            const bool claims = e->event == "GPU_PICKUP" || e->event == "GPU_START";
            if (claims && (!slot || !other || *slot == *other)) claim = j;
        }
        // A SLOT_READY right before the gpud events owns their claim: this one is a later tenancy's.
        if (claim == i || (j > 0 && events[j - 1]->event == "SLOT_READY")) continue;
        const std::int64_t at = events[claim]->ms;
        late.emplace_back(ready, ready->ms - at);
        ready_at[ready] = at;
        const auto at_claim = events.begin() + static_cast<std::ptrdiff_t>(claim);
        const auto at_ready = events.begin() + static_cast<std::ptrdiff_t>(i);
        std::rotate(at_claim, at_ready, at_ready + 1);
    }
    return late;
}

std::string opt_ms(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : "-"; }

std::optional<std::int64_t> diff(const std::optional<std::int64_t>& later, const std::optional<std::int64_t>& earlier) {
    if (!later || !earlier) return std::nullopt;
    return *later - *earlier;
}

nlohmann::json opt_json(const std::optional<std::int64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

std::string percent(const std::optional<double>& e) { return e ? fmt::format("{:.1f}%", *e * 100.0) : "-"; }

}  // namespace

const std::string* record::find(std::string_view key) const {
    for (const auto& [k, v] : fields) {
        if (k == key) return &v;
    }
    return nullptr;
}

parsed_line parse_line(std::string_view text) {
    parsed_line out;
    std::size_t pos = find_marker(text);
    if (pos == std::string_view::npos) return out;
    out.is_timeline = true;
    std::string_view rest = text.substr(pos + marker.size());
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);

    std::vector<std::string_view> tokens;
    for (std::size_t start = 0;;) {
        std::size_t comma = rest.find(',', start);
        tokens.push_back(rest.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    if (tokens.size() > 3 && tokens.back().empty()) tokens.pop_back();  // "k=v," : a trailing comma
    if (tokens.size() < 3) {
        out.error = "expected TIMELINE,<ms>,<EVENT>,<job>[,k=v...]";
        return out;
    }
    record r;
    auto ms = to_int(tokens[0]);
    if (!ms || *ms < 0) {
        out.error = fmt::format("timestamp \"{}\" is not a number of milliseconds", tokens[0]);
        return out;
    }
    r.ms = *ms;
    if (tokens[1].empty() || !std::all_of(tokens[1].begin(), tokens[1].end(), [](char c) {
            return std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_';
        })) {
        out.error = fmt::format("event \"{}\" is not an EVENT_NAME", tokens[1]);
        return out;
    }
    r.event = tokens[1];
    if (tokens[2].empty()) {
        out.error = "empty job id";
        return out;
    }
    r.job = tokens[2];
    for (std::size_t i = 3; i < tokens.size(); ++i) {
        std::size_t eq = tokens[i].find('=');
        if (eq == std::string_view::npos || eq == 0) {
            out.error = fmt::format("field \"{}\" is not key=value", tokens[i]);
            return out;
        }
        r.fields.emplace_back(std::string(tokens[i].substr(0, eq)), std::string(tokens[i].substr(eq + 1)));
    }
    for (std::string_view key : {"partition", "ms", "slot", "worker"}) {
        const std::string* v = r.find(key);
        if (v && !to_int(*v)) {
            out.error = fmt::format("{}={} is not an integer", key, *v);
            return out;
        }
    }
    if (partition_events.count(r.event) && !r.find("partition")) {
        out.error = fmt::format("{} without partition=", r.event);
        return out;
    }
    out.rec = std::move(r);
    return out;
}

void read_log(std::istream& in, const std::string& source, log_set& out) {
    out.sources.push_back(source);
    std::string text;
    std::size_t line = 0;
    while (std::getline(in, text)) {
        ++line;
        ++out.lines;
        parsed_line p = parse_line(text);
        if (!p.is_timeline) continue;
        if (!p.rec) {
            out.problems.push_back({source, line, "malformed TIMELINE line: " + p.error});
            continue;
        }
        p.rec->source = source;
        p.rec->line = line;
        p.rec->order = out.records.size();
        out.records.push_back(std::move(*p.rec));
    }
    if (in.bad()) throw input_error(source + ": read error after line " + std::to_string(line));
}

void read_log_file(const std::string& path, log_set& out) {
    if (path == "-") {
        read_log(std::cin, "<stdin>", out);
        return;
    }
    std::ifstream in(path);
    if (!in) throw input_error(path + ": cannot open the log file (does it exist and is it readable?)");
    read_log(in, path, out);
}

std::optional<double> phase_stats::efficiency() const {
    if (span_ms <= 0) return std::nullopt;
    return static_cast<double>(busy_ms) / static_cast<double>(span_ms);
}

void phase_stats::add(const phase_stats& o) {
    busy_ms += o.busy_ms;
    span_ms += o.span_ms;
    gaps_under_50 += o.gaps_under_50;
    gaps_50_to_500 += o.gaps_50_to_500;
    gaps_over_500 += o.gaps_over_500;
    stalls += o.stalls;
    overheads += o.overheads;
    stall_ms += o.stall_ms;
    overhead_ms += o.overhead_ms;
}

analysis analyze(log_set& logs, const analysis_options& options) {
    analysis a;
    a.warmup_jobs_requested = options.warmup_jobs;
    std::vector<record>& recs = logs.records;
    // The one clock: every daemon stamps CLOCK_REALTIME, so a sort merges the files; ties keep input order.
    std::stable_sort(recs.begin(), recs.end(), [](const record& x, const record& y) { return x.ms < y.ms; });
    if (!recs.empty()) {
        a.origin_ms = recs.front().ms;
        a.last_ms = recs.back().ms;
    }

    std::map<std::pair<std::string, std::int64_t>, std::vector<const record*>> by_partition;
    std::map<std::string, job_row> jobs;
    std::set<std::string> unknown;
    for (const record& r : recs) {
        job_row& j = jobs[r.job];
        j.job = r.job;
        if (r.event == "JOB_SUBMIT") {
            if (!j.submit) j.submit = r.ms;
        } else if (r.event == "JOB_DONE") {
            j.done = r.ms;
        } else if (partition_events.count(r.event)) {
            by_partition[{r.job, *int_field(r, "partition")}].push_back(&r);
        } else {
            unknown.insert(r.event);
        }
    }
    a.unknown_events.assign(unknown.begin(), unknown.end());

    std::vector<ready_window> windows;
    std::vector<std::pair<const record*, std::int64_t>> late_ready;  // SLOT_READY stamped after its claim, by ms
    std::map<const record*, std::int64_t> ready_at;                   // their times, put back
    for (auto& [key, events] : by_partition) {
        // Within one partition, two processes may log in the same millisecond: order by lifecycle.
        std::stable_sort(events.begin(), events.end(), [](const record* x, const record* y) {
            if (x->ms != y->ms) return x->ms < y->ms;
            return partition_events.find(x->event)->second < partition_events.find(y->event)->second;
        });
        for (const auto& l : put_late_slot_ready_back(events, ready_at)) late_ready.push_back(l);
        partition_row row;
        row.job = key.first;
        row.partition = key.second;
        int synth_starts = 0, gpu_starts = 0;
        std::int64_t ready_from = unset, claim_from = unset, lock_wait_at = unset;
        std::string claim_gpu;
        const record* open_start = nullptr;
        for (const record* r : events) {
            const std::string& e = r->event;
            if (const std::string* w = r->find("worker")) row.worker = *w;
            if (const std::string* s = r->find("slot")) row.slot = *s;
            if (e == "SYNTH_START") {
                ++synth_starts;
                row.synth_start = r->ms;
            } else if (e == "SYNTH_END") {
                row.synth_end = r->ms;
            } else if (e == "SLOT_READY") {
                const auto moved = ready_at.find(r);
                row.slot_ready = moved == ready_at.end() ? r->ms : moved->second;
                ready_from = *row.slot_ready;
                // A new tenancy (the partition synthesized again): an earlier attempt's pickup is not its own, and
                // would make its wait negative; its own pickup, if any, comes next.
                row.pickup.reset();
            } else if (e == "GPU_PICKUP") {
                row.pickup = r->ms;
                if (ready_from != unset) windows.push_back({ready_from, r->ms, ""});
                ready_from = unset;
                claim_from = r->ms;
                claim_gpu = gpu_of(*r);
                row.gpu = claim_gpu;
            } else if (e == "LOCK_WAIT") {
                if (auto ms = int_field(*r, "ms")) {
                    row.lock_wait_ms = *ms;
                    lock_wait_at = unset;
                } else {
                    lock_wait_at = r->ms;  // logged when the wait began: it lasts until GPU_START
                }
            } else if (e == "GPU_START") {
                ++gpu_starts;
                row.gpu_start = r->ms;
                row.gpu = gpu_of(*r);
                if (ready_from != unset) windows.push_back({ready_from, r->ms, ""});  // no GPU_PICKUP logged
                ready_from = unset;
                if (claim_from != unset) windows.push_back({claim_from, r->ms, claim_gpu});
                claim_from = unset;
                if (lock_wait_at != unset) row.lock_wait_ms = r->ms - lock_wait_at;
                lock_wait_at = unset;
                if (open_start) {
                    logs.problems.push_back({open_start->source, open_start->line,
                                             fmt::format("GPU_START of job {} partition {} has no GPU_END before the "
                                                         "next GPU_START (a worker died under the lock?)",
                                                         key.first, key.second)});
                }
                open_start = r;
            } else if (e == "GPU_END") {
                row.gpu_end = r->ms;
                if (!open_start) {
                    logs.problems.push_back({r->source, r->line,
                                             fmt::format("GPU_END of job {} partition {} without a GPU_START",
                                                         key.first, key.second)});
                    continue;
                }
                a.intervals.push_back({gpu_of(*open_start), key.first, key.second, open_start->ms, r->ms,
                                       field_or(*open_start, "beside", "") == "lock"});
                open_start = nullptr;
            } else if (e == "TAIL_END") {
                row.tail_end = r->ms;
            } else if (e == "PARTITION_DONE") {
                row.done = r->ms;
            }
        }
        if (ready_from != unset) windows.push_back({ready_from, open_end, ""});
        if (claim_from != unset) windows.push_back({claim_from, open_end, claim_gpu});
        if (open_start) {
            logs.problems.push_back({open_start->source, open_start->line,
                                     fmt::format("GPU_START of job {} partition {} never ended", key.first,
                                                 key.second)});
        }
        row.attempts = std::max({synth_starts, gpu_starts, 1});
        jobs[key.first].partitions += 1;
        a.partitions.push_back(std::move(row));
    }

    if (!late_ready.empty()) {
        const auto first = std::min_element(late_ready.begin(), late_ready.end(), [](const auto& x, const auto& y) {
            return x.first->order < y.first->order;
        });
        std::int64_t most = 0;
        for (const auto& l : late_ready) most = std::max(most, l.second);
        logs.problems.push_back(
            {first->first->source, first->first->line,
             fmt::format("{} SLOT_READY line(s) stamped after gpud had claimed the slot (by up to {} ms; a synthd that "
                         "logged SLOT_READY after its commit): each is counted at its claim, a ring wait of 0 ms",
                         late_ready.size(), most)});
    }

    // Warm-up: the first |warmup_jobs| jobs to reach the GPU; it ends at their last GPU_END.
    for (const gpu_interval& iv : a.intervals) {
        job_row& j = jobs[iv.job];
        if (!j.first_gpu_start || iv.start < *j.first_gpu_start) j.first_gpu_start = iv.start;
    }
    std::vector<job_row*> gpu_order;
    for (auto& [name, j] : jobs) {
        if (j.first_gpu_start) gpu_order.push_back(&j);
    }
    std::stable_sort(gpu_order.begin(), gpu_order.end(),
                     [](const job_row* x, const job_row* y) { return *x->first_gpu_start < *y->first_gpu_start; });
    std::set<std::string> warm;
    for (std::size_t i = 0; i < gpu_order.size() && i < static_cast<std::size_t>(std::max(options.warmup_jobs, 0));
         ++i) {
        gpu_order[i]->warmup = true;
        warm.insert(gpu_order[i]->job);
        a.warmup_jobs.push_back(gpu_order[i]->job);
    }
    for (const gpu_interval& iv : a.intervals) {
        if (warm.count(iv.job) && (!a.warmup_end_ms || iv.end > *a.warmup_end_ms)) a.warmup_end_ms = iv.end;
    }
    for (partition_row& row : a.partitions) row.warmup = warm.count(row.job) > 0;

    // Per GPU: busy time as a union of intervals (overlaps are reported, never counted twice), gaps.
    std::map<std::string, std::vector<const gpu_interval*>> per_gpu;
    for (const gpu_interval& iv : a.intervals) per_gpu[iv.gpu].push_back(&iv);
    const std::optional<std::int64_t> cutoff = a.warmup_end_ms;
    for (auto& [gpu, ivs] : per_gpu) {
        std::stable_sort(ivs.begin(), ivs.end(), [](const gpu_interval* x, const gpu_interval* y) { return x->start < y->start; });
        gpu_stats g;
        g.gpu = gpu;
        g.intervals = ivs.size();
        std::vector<std::pair<std::int64_t, std::int64_t>> busy;
        const gpu_interval* last = nullptr;  // the interval whose GPU_END is the latest so far
        for (const gpu_interval* iv : ivs) {
            if (last && iv->start < last->end) {
                if (!iv->beside_lock && !last->beside_lock)
                    logs.problems.push_back({"", 0,
                                         fmt::format("gpu {}: job {} partition {} was under the lock [{}, {}] while "
                                                     "job {} partition {} was [{}, {}]: the lock was not exclusive, "
                                                     "or several GPUs log without gpu=",
                                                     gpu, iv->job, iv->partition, iv->start, iv->end, last->job,
                                                     last->partition, last->start, last->end)});
                busy.back().second = std::max(busy.back().second, iv->end);
                if (iv->end > last->end) last = iv;
                continue;
            }
            if (last) {
                gap gp;
                gp.gpu = gpu;
                gp.from = last->end;
                gp.to = iv->start;
                gp.after_job = last->job;
                gp.after_partition = last->partition;
                const std::int64_t t = gp.from;
                gp.stall = std::none_of(windows.begin(), windows.end(), [&](const ready_window& w) {
                    return w.from <= t && t <= w.to && (w.gpu.empty() || w.gpu == gpu);
                });
                gp.warmup = cutoff && gp.from < *cutoff;
                a.gaps.push_back(gp);
            }
            busy.emplace_back(iv->start, iv->end);
            last = iv;
        }
        const std::int64_t first = busy.front().first;
        const std::int64_t end = busy.back().second;
        g.all.span_ms = end - first;
        g.all.busy_ms = clipped(busy, first, end);
        if (cutoff) {
            std::int64_t warm_end = std::min(*cutoff, end);
            if (warm_end > first) {
                g.warmup.span_ms = warm_end - first;
                g.warmup.busy_ms = clipped(busy, first, warm_end);
            }
        }
        std::int64_t steady_from = cutoff ? std::max(*cutoff, first) : first;
        if (end > steady_from) {
            g.steady.span_ms = end - steady_from;
            g.steady.busy_ms = clipped(busy, steady_from, end);
        }
        a.gpus.push_back(std::move(g));
    }
    for (const gap& gp : a.gaps) {
        gpu_stats& g = *std::find_if(a.gpus.begin(), a.gpus.end(), [&](const gpu_stats& s) { return s.gpu == gp.gpu; });
        for (phase_stats* p : {&g.all, gp.warmup ? &g.warmup : &g.steady}) {
            if (gp.ms() < 50) {
                ++p->gaps_under_50;
            } else if (gp.ms() <= 500) {
                ++p->gaps_50_to_500;
            } else {
                ++p->gaps_over_500;
            }
            if (gp.stall) {
                ++p->stalls;
                p->stall_ms += gp.ms();
            } else {
                ++p->overheads;
                p->overhead_ms += gp.ms();
            }
        }
    }
    for (const gpu_stats& g : a.gpus) {
        a.all.add(g.all);
        a.warmup.add(g.warmup);
        a.steady.add(g.steady);
    }

    for (auto& [name, j] : jobs) a.jobs.push_back(j);
    std::stable_sort(a.jobs.begin(), a.jobs.end(), [](const job_row& x, const job_row& y) {
        auto at = [](const job_row& j) { return j.submit ? *j.submit : j.first_gpu_start.value_or(open_end); };
        return at(x) < at(y);
    });
    std::stable_sort(a.partitions.begin(), a.partitions.end(), [](const partition_row& x, const partition_row& y) {
        auto at = [](const partition_row& p) {
            for (const auto& v : {p.synth_start, p.synth_end, p.slot_ready, p.pickup, p.gpu_start, p.gpu_end}) {
                if (v) return *v;
            }
            return open_end;
        };
        return at(x) < at(y);
    });
    return a;
}

nlohmann::json to_json(const analysis& a, const log_set& logs) {
    using nlohmann::json;
    auto phase = [](const phase_stats& p) {
        auto e = p.efficiency();
        return json{{"busy_ms", p.busy_ms},
                    {"span_ms", p.span_ms},
                    {"efficiency", e ? json(*e) : json()},
                    {"gaps", {{"under_50ms", p.gaps_under_50}, {"50_to_500ms", p.gaps_50_to_500}, {"over_500ms", p.gaps_over_500}}},
                    {"synthesis_stalls", {{"count", p.stalls}, {"ms", p.stall_ms}}},
                    {"overhead", {{"count", p.overheads}, {"ms", p.overhead_ms}}}};
    };
    json out;
    out["sources"] = logs.sources;
    out["lines"] = logs.lines;
    out["events"] = logs.records.size();
    out["origin_ms"] = opt_json(a.origin_ms);
    json problems = json::array();
    for (const problem& p : logs.problems) {
        problems.push_back({{"file", p.source}, {"line", p.line}, {"message", p.message}});
    }
    out["problems"] = problems;
    out["unknown_events"] = a.unknown_events;
    out["warmup"] = {{"definition", "the first N jobs to reach the GPU, until their last GPU_END"},
                     {"jobs_requested", a.warmup_jobs_requested},
                     {"jobs", a.warmup_jobs},
                     {"end_ms", opt_json(a.warmup_end_ms)}};
    out["all"] = phase(a.all);
    out["warmup_phase"] = phase(a.warmup);
    out["steady"] = phase(a.steady);
    json gpus = json::array();
    for (const gpu_stats& g : a.gpus) {
        gpus.push_back({{"gpu", g.gpu}, {"intervals", g.intervals}, {"all", phase(g.all)}, {"warmup_phase", phase(g.warmup)},
                        {"steady", phase(g.steady)}});
    }
    out["gpus"] = gpus;
    json rows = json::array();
    for (const partition_row& p : a.partitions) {
        rows.push_back({{"job", p.job},
                        {"partition", p.partition},
                        {"gpu", p.gpu},
                        {"worker", p.worker},
                        {"slot", p.slot},
                        {"attempts", p.attempts},
                        {"warmup", p.warmup},
                        {"synth_start_ms", opt_json(p.synth_start)},
                        {"synth_end_ms", opt_json(p.synth_end)},
                        {"slot_ready_ms", opt_json(p.slot_ready)},
                        {"gpu_pickup_ms", opt_json(p.pickup)},
                        {"gpu_start_ms", opt_json(p.gpu_start)},
                        {"gpu_end_ms", opt_json(p.gpu_end)},
                        {"tail_end_ms", opt_json(p.tail_end)},
                        {"done_ms", opt_json(p.done)},
                        {"synth", opt_json(diff(p.synth_end, p.synth_start))},
                        {"wait", opt_json(diff(p.pickup, p.slot_ready))},
                        {"lock_wait", opt_json(p.lock_wait_ms)},
                        {"gpu_time", opt_json(diff(p.gpu_end, p.gpu_start))},
                        {"tail", opt_json(diff(p.tail_end, p.gpu_end))}});
    }
    out["partitions"] = rows;
    json jobs = json::array();
    for (const job_row& j : a.jobs) {
        jobs.push_back({{"job", j.job},
                        {"partitions", j.partitions},
                        {"warmup", j.warmup},
                        {"submit_ms", opt_json(j.submit)},
                        {"done_ms", opt_json(j.done)},
                        {"latency", opt_json(diff(j.done, j.submit))}});
    }
    out["jobs"] = jobs;
    json gaps = json::array();
    for (const gap& g : a.gaps) {
        gaps.push_back({{"gpu", g.gpu}, {"from_ms", g.from}, {"to_ms", g.to}, {"ms", g.ms()},
                        {"after_job", g.after_job}, {"after_partition", g.after_partition},
                        {"kind", g.stall ? "synthesis_stall" : "overhead"}, {"warmup", g.warmup}});
    }
    out["gaps"] = gaps;
    return out;
}

void print_report(std::ostream& out, const analysis& a, const log_set& logs) {
    out << fmt::format("{} TIMELINE events from {} file(s), {} partitions of {} jobs on {} GPU(s)\n",
                       logs.records.size(), logs.sources.size(), a.partitions.size(), a.jobs.size(), a.gpus.size());
    if (!a.origin_ms) return;
    const std::int64_t origin = *a.origin_ms;
    const std::int64_t total = std::max<std::int64_t>(*a.last_ms - origin, 1);

    // The waterfall: times in ms; the bar spans the whole run: s synth, r ready in the ring, p prep and
    // lock wait, G under the lock, t tail.
    constexpr int width = 40;
    out << fmt::format("\nWaterfall (ms; start is from the first event, {} ms since the epoch; * = warm-up)\n", origin);
    out << fmt::format("{:<16} {:>4} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>5} {:>3}  {}\n", "job", "part",
                       "start", "synth", "wait", "lock", "gpu", "tail", "total", "gpu/w", "try", "timeline");
    for (const partition_row& p : a.partitions) {
        std::string bar(width, ' ');
        auto paint = [&](const std::optional<std::int64_t>& from, const std::optional<std::int64_t>& to, char c) {
            if (!from || !to) return;
            int lo = static_cast<int>((*from - origin) * width / total);
            int hi = static_cast<int>((*to - origin) * width / total);
            for (int i = std::max(lo, 0); i <= std::min(hi, width - 1); ++i) bar[static_cast<std::size_t>(i)] = c;
        };
        paint(p.synth_start, p.synth_end, 's');
        paint(p.slot_ready, p.pickup, 'r');
        paint(p.pickup, p.gpu_start, 'p');
        paint(p.gpu_end, p.tail_end, 't');
        paint(p.gpu_start, p.gpu_end, 'G');
        std::optional<std::int64_t> first = p.synth_start ? p.synth_start : p.slot_ready ? p.slot_ready : p.pickup;
        std::optional<std::int64_t> finish = p.done ? p.done : p.tail_end ? p.tail_end : p.gpu_end;
        std::string who = p.gpu.empty() ? "-" : p.gpu + "/" + (p.worker.empty() ? "-" : p.worker);
        out << fmt::format("{:<16} {:>4} {:>8} {:>7} {:>7} {:>7} {:>7} {:>7} {:>7} {:>5} {:>3}  |{}|\n",
                           (p.warmup ? "*" : "") + p.job, p.partition, opt_ms(diff(first, a.origin_ms)),
                           opt_ms(diff(p.synth_end, p.synth_start)), opt_ms(diff(p.pickup, p.slot_ready)),
                           opt_ms(p.lock_wait_ms), opt_ms(diff(p.gpu_end, p.gpu_start)),
                           opt_ms(diff(p.tail_end, p.gpu_end)), opt_ms(diff(finish, first)), who, p.attempts, bar);
    }

    bool any_job_times = std::any_of(a.jobs.begin(), a.jobs.end(), [](const job_row& j) { return j.submit || j.done; });
    if (any_job_times) {
        out << "\nJobs (ms)\n";
        out << fmt::format("{:<16} {:>5} {:>9} {:>9}\n", "job", "parts", "submit", "latency");
        for (const job_row& j : a.jobs) {
            out << fmt::format("{:<16} {:>5} {:>9} {:>9}\n", (j.warmup ? "*" : "") + j.job, j.partitions,
                               opt_ms(diff(j.submit, a.origin_ms)), opt_ms(diff(j.done, j.submit)));
        }
    }

    if (a.warmup_jobs.empty()) {
        out << "\nWarm-up: none (--warmup-jobs 0, or no GPU work)\n";
    } else {
        std::string names;
        for (const std::string& j : a.warmup_jobs) names += (names.empty() ? "" : ", ") + j;
        out << fmt::format("\nWarm-up: the first {} job(s) on the GPU ({}), until {} ms\n", a.warmup_jobs.size(), names,
                           *a.warmup_end_ms - origin);
    }
    out << "\nGaps between GPU_END and the next GPU_START on the same GPU\n";
    out << fmt::format("{:<14} {:>6} {:>9} {:>7} {:>16} {:>16}\n", "", "<50ms", "50-500ms", ">500ms", "synth stalls",
                       "overhead");
    auto gap_line = [&](std::string_view name, const phase_stats& p) {
        out << fmt::format("{:<14} {:>6} {:>9} {:>7} {:>16} {:>16}\n", name, p.gaps_under_50, p.gaps_50_to_500,
                           p.gaps_over_500, fmt::format("{} / {} ms", p.stalls, p.stall_ms),
                           fmt::format("{} / {} ms", p.overheads, p.overhead_ms));
    };
    gap_line("warm-up", a.warmup);
    gap_line("steady state", a.steady);
    gap_line("all", a.all);

    out << "\nGPU efficiency (time under the lock / first GPU_START to last GPU_END)\n";
    auto eff = [](const phase_stats& p) {
        return fmt::format("{:>6} ({} of {} ms)", percent(p.efficiency()), p.busy_ms, p.span_ms);
    };
    out << fmt::format("{:<8} {:>5} {:<28} {:<28} {}\n", "gpu", "parts", "warm-up", "steady state", "all");
    for (const gpu_stats& g : a.gpus) {
        out << fmt::format("{:<8} {:>5} {:<28} {:<28} {}\n", g.gpu, g.intervals, eff(g.warmup), eff(g.steady), eff(g.all));
    }
    if (a.gpus.size() > 1) {
        out << fmt::format("{:<8} {:>5} {:<28} {:<28} {}\n", "all", a.intervals.size(), eff(a.warmup), eff(a.steady),
                           eff(a.all));
    }
    if (!a.unknown_events.empty()) {
        std::string names;
        for (const std::string& e : a.unknown_events) names += (names.empty() ? "" : ", ") + e;
        out << "\nEvents not analysed (unknown to this version): " << names << "\n";
    }
}

}  // namespace cuzk::timeline
