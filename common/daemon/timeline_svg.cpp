#include "common/daemon/timeline_svg.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <ctime>
#include <map>
#include <optional>
#include <vector>

namespace cuzk::timeline {

namespace {

// Tableau-10 hues: apart from each other and readable on white.
namespace colour {
constexpr std::string_view synthesis = "#4e79a7";
constexpr std::string_view ring_wait = "#bab0ac";
constexpr std::string_view prep = "#edc948";
constexpr std::string_view lock_wait = "#b07aa1";
constexpr std::string_view gpu = "#59a14f";
constexpr std::string_view tail = "#9c755f";
constexpr std::string_view stall = "#e15759";
constexpr std::string_view overhead = "#f28e2b";
constexpr std::string_view grid = "#e2e2e2";
constexpr std::string_view band = "#f2f2f2";
constexpr std::string_view ink = "#222222";  // the root's fill: every text without its own
constexpr std::string_view muted = "#666666";
}  // namespace colour

constexpr double margin = 12;
constexpr double label_font = 11;
constexpr double char_width = 0.6;  // of the font size: a generous average for sans-serif
constexpr std::size_t max_job_chars = 28;
constexpr double band_h = 16, strip_h = 4, band_pitch = 26;

std::uint8_t to_byte(double v) { return static_cast<std::uint8_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); }

// Job |i| of the run: hues a golden angle apart, so neighbouring jobs differ however many there are.
std::string job_colour(std::size_t i) {
    const double h = std::fmod(static_cast<double>(i) * 137.508 + 210.0, 360.0) / 60.0;
    const double s = 0.62, l = 0.46;
    const double c = (1.0 - std::abs(2.0 * l - 1.0)) * s;
    const double x = c * (1.0 - std::abs(std::fmod(h, 2.0) - 1.0));
    double r = 0, g = 0, b = 0;
    switch (static_cast<int>(h)) {
        case 0: r = c, g = x; break;
        case 1: r = x, g = c; break;
        case 2: g = c, b = x; break;
        case 3: g = x, b = c; break;
        case 4: r = x, b = c; break;
        default: r = c, b = x; break;
    }
    const double m = l - c / 2.0;
    return fmt::format("#{:02x}{:02x}{:02x}", to_byte(r + m), to_byte(g + m), to_byte(b + m));
}

std::string percent(const std::optional<double>& e) { return e ? fmt::format("{:.1f}%", *e * 100.0) : "-"; }

std::string duration(std::int64_t ms) {
    return ms < 10000 ? fmt::format("{} ms", ms) : fmt::format("{:.1f} s", static_cast<double>(ms) / 1000.0);
}

std::string shorten(std::string_view s, std::size_t max_chars) {
    if (s.size() <= max_chars) return std::string(s);
    std::size_t cut = max_chars - 3;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 character
    return std::string(s.substr(0, cut)) + "...";
}

std::string utc(std::int64_t epoch_ms) {
    const std::time_t secs = static_cast<std::time_t>(epoch_ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    return fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03} UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                       tm.tm_hour, tm.tm_min, tm.tm_sec, epoch_ms % 1000);
}

class svg_writer {
public:
    std::string out;

    // Nothing for an empty or negative size: every rect written has a positive width and height.
    void rect(double x, double y, double w, double h, std::string_view fill, std::string_view attrs = {},
              std::string_view tooltip = {}) {
        if (!(w > 0) || !(h > 0)) return;
        out += fmt::format(R"(<rect x="{:.2f}" y="{:.2f}" width="{:.2f}" height="{:.2f}" fill="{}")", x, y, w, h, fill);
        if (!attrs.empty()) out += fmt::format(" {}", attrs);
        if (tooltip.empty()) {
            out += "/>\n";
        } else {
            out += fmt::format("><title>{}</title></rect>\n", xml_escape(tooltip));
        }
    }
    void text(double x, double y, std::string_view s, double size, std::string_view attrs = {}) {
        out += fmt::format(R"(<text x="{:.2f}" y="{:.2f}" font-size="{:.1f}")", x, y, size);
        if (!attrs.empty()) out += fmt::format(" {}", attrs);
        out += fmt::format(">{}</text>\n", xml_escape(s));
    }
    void line(double x1, double y1, double x2, double y2, std::string_view stroke, std::string_view attrs = {}) {
        out += fmt::format(R"(<line x1="{:.2f}" y1="{:.2f}" x2="{:.2f}" y2="{:.2f}" stroke="{}")", x1, y1, x2, y2, stroke);
        if (!attrs.empty()) out += fmt::format(" {}", attrs);
        out += "/>\n";
    }
};

struct time_scale {
    std::int64_t origin = 0;
    double span_ms = 1;
    double x0 = 0, width = 1;
    double x(std::int64_t t) const { return x0 + static_cast<double>(t - origin) * width / span_ms; }
};

// A tick every 1, 2 or 5 x 10^k ms, about every 90 px.
double tick_step_ms(double span_ms, double width) {
    const double target = std::max(span_ms * 90.0 / width, 1.0);
    const double decade = std::pow(10.0, std::floor(std::log10(target)));
    for (double m : {1.0, 2.0, 5.0}) {
        if (m * decade >= target) return m * decade;
    }
    return 10.0 * decade;
}

struct legend_item {
    std::string_view colour;
    std::string text;
    enum kind { swatch, gap_buckets, job_strip, warmup } shape = swatch;
};

// The legend in lines no wider than |width|; returns the y below it.
double draw_legend(svg_writer& svg, const std::vector<legend_item>& items, double y, double width, std::size_t jobs) {
    constexpr double line_h = 18, font = 11;
    double x = margin;
    for (const legend_item& item : items) {
        const double item_w = 22 + static_cast<double>(item.text.size()) * font * char_width + 14;
        if (x > margin && x + item_w > width - margin) {
            x = margin;
            y += line_h;
        }
        switch (item.shape) {
            case legend_item::swatch: svg.rect(x, y, 16, 10, item.colour); break;
            case legend_item::gap_buckets:
                svg.rect(x, y + 7, 4, 3, colour::stall);
                svg.rect(x + 6, y + 4, 4, 6, colour::stall);
                svg.rect(x + 12, y, 4, 10, colour::stall);
                break;
            case legend_item::job_strip:
                for (std::size_t j = 0; j < std::max<std::size_t>(std::min<std::size_t>(jobs, 4), 1); ++j)
                    svg.rect(x + static_cast<double>(j) * 4, y, 4, 10, job_colour(j));
                break;
            case legend_item::warmup:
                svg.rect(x, y, 16, 10, "#000000", R"(fill-opacity="0.08")");
                svg.line(x + 16, y - 1, x + 16, y + 11, colour::muted, R"(stroke-dasharray="3,2")");
                break;
        }
        svg.text(x + 22, y + 9, item.text, font);
        x += item_w;
    }
    return y + line_h;
}

struct row_phase {
    std::optional<std::int64_t> from, to;
    std::string_view colour;
    std::string_view name;
    bool instant_counts = false;  // an instant under the lock is still work on the GPU; an instant wait is no wait
};

std::string opt_duration(const std::optional<std::int64_t>& from, const std::optional<std::int64_t>& to) {
    return from && to && *to >= *from ? fmt::format("{} ms", *to - *from) : "-";
}

}  // namespace

std::string xml_escape(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            switch (c) {
                case '&': out += "&amp;"; break;
                case '<': out += "&lt;"; break;
                case '>': out += "&gt;"; break;
                case '"': out += "&quot;"; break;
                case '\'': out += "&apos;"; break;
                default: out += (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7F ? '?' : static_cast<char>(c);
            }
            ++i;
            continue;
        }
        // A well-formed UTF-8 sequence (no overlong forms, no surrogates) passes whole; anything else is one '?'.
        std::size_t len = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
        bool ok = len > 0 && i + len <= text.size();
        for (std::size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xC0) == 0x80;
        if (ok && len >= 3) {
            const unsigned char c1 = static_cast<unsigned char>(text[i + 1]);
            const bool overlong = (c == 0xE0 && c1 < 0xA0) || (c == 0xF0 && c1 < 0x90);
            const bool surrogate_or_too_high = (c == 0xED && c1 >= 0xA0) || (c == 0xF4 && c1 >= 0x90);
            if (overlong || surrogate_or_too_high) ok = false;
        }
        if (ok && len == 3 && c == 0xEF && static_cast<unsigned char>(text[i + 1]) == 0xBF &&
            static_cast<unsigned char>(text[i + 2]) >= 0xBE)
            ok = false;  // U+FFFE and U+FFFF are not XML characters
        if (ok) {
            out.append(text.substr(i, len));
            i += len;
        } else {
            out += '?';
            ++i;
        }
    }
    return out;
}

std::string render_svg(const analysis& a, const log_set& logs, const svg_options& options) {
    const double width = std::clamp(options.width, 480, 20000);
    svg_writer svg;

    std::map<std::string, std::size_t, std::less<>> job_index;
    for (const job_row& j : a.jobs) job_index.emplace(j.job, job_index.size());
    auto colour_of = [&](const std::string& job) {
        auto it = job_index.find(job);
        return job_colour(it == job_index.end() ? 0 : it->second);
    };

    // Title: the steady-state efficiency first, as that is what a configuration is judged by.
    const auto steady = a.steady.efficiency(), overall = a.all.efficiency();
    std::string title;
    if (!overall) {
        title = "cuzk timeline: no GPU work in the logs";
    } else if (steady) {
        title = fmt::format("cuzk timeline: GPU efficiency {} in the steady state ({} of {} busy), {} overall",
                            percent(steady), duration(a.steady.busy_ms), duration(a.steady.span_ms), percent(overall));
    } else {
        title = fmt::format("cuzk timeline: GPU efficiency {} overall ({} of {} busy; no steady state after the warm-up)",
                            percent(overall), duration(a.all.busy_ms), duration(a.all.span_ms));
    }
    std::string files;
    for (const std::string& s : logs.sources) {
        const std::size_t slash = s.find_last_of('/');
        files += (files.empty() ? "" : ", ") + (slash == std::string::npos ? s : s.substr(slash + 1));
    }
    const std::string counts =
        fmt::format("{} partitions of {} jobs on {} GPU(s); {} TIMELINE events from {}", a.partitions.size(),
                    a.jobs.size(), a.gpus.size(), logs.records.size(), shorten(files, 120));
    std::string warm_text;
    if (a.warmup_end_ms && a.origin_ms) {
        std::string names;
        for (const std::string& j : a.warmup_jobs) names += (names.empty() ? "" : ", ") + shorten(j, max_job_chars);
        warm_text = fmt::format("warm-up: job(s) {} until {:.3f} s; ", shorten(names, 80),
                                static_cast<double>(*a.warmup_end_ms - *a.origin_ms) / 1000.0);
    }
    const std::string gap_text =
        fmt::format("{}gaps on the GPU: synthesis stalls {} ({}), overhead {} ({}); "
                    "< 50 ms: {}, 50-500 ms: {}, > 500 ms: {}",
                    warm_text, a.all.stalls, duration(a.all.stall_ms), a.all.overheads, duration(a.all.overhead_ms),
                    a.all.gaps_under_50, a.all.gaps_50_to_500, a.all.gaps_over_500);

    std::vector<legend_item> legend = {
        {colour::synthesis, "synthesis (SYNTH_START..SYNTH_END)"},
        {colour::ring_wait, "ring wait (SLOT_READY..GPU_PICKUP)"},
        {colour::prep, "prep (GPU_PICKUP..lock wait)"},
        {colour::lock_wait, "lock wait (LOCK_WAIT ms=)"},
        {colour::gpu, "GPU under the lock (GPU_START..GPU_END)"},
        {colour::tail, "tail (GPU_END..TAIL_END)"},
        {colour::stall, "gap: synthesis stall"},
        {colour::overhead, "gap: overhead"},
        {colour::stall, "gap height: < 50 ms, 50-500 ms, > 500 ms", legend_item::gap_buckets},
        {{}, "job (strip and row tint)", legend_item::job_strip},
    };
    if (a.warmup_end_ms) legend.push_back({{}, "warm-up", legend_item::warmup});

    // Rows: 16 px while they fit in ~800 px, then shrinking to 3 px; below 9 px a label per job, not per row.
    const std::size_t n = a.partitions.size();
    const double row_h = n == 0 ? 16 : std::clamp(std::floor(800.0 / static_cast<double>(n)), 3.0, 16.0);
    const bool row_labels = row_h >= 9;
    const double row_font = std::min(label_font, row_h - 1);
    auto row_label = [&](const partition_row& p) {
        return fmt::format("job {} p {}{}", shorten(p.job, max_job_chars), p.partition,
                           p.attempts > 1 ? fmt::format(" ({} tries)", p.attempts) : "");
    };
    std::size_t label_chars = 10;
    for (const partition_row& p : a.partitions) label_chars = std::max(label_chars, row_label(p).size());
    auto gpu_label = [](const gpu_stats& g) { return fmt::format("GPU {} {}", shorten(g.gpu, 12), percent(g.all.efficiency())); };
    for (const gpu_stats& g : a.gpus) label_chars = std::max(label_chars, gpu_label(g).size());
    const double label_w = std::clamp(static_cast<double>(label_chars) * label_font * char_width, 60.0, 260.0);
    const double x0 = margin + label_w + 14;
    const double plot_w = width - x0 - margin - 8;

    // Header.
    svg.text(margin, 24, title, 16, R"(class="title" font-weight="bold")");
    svg.text(margin, 42, counts, 11, R"(fill="#444444")");
    svg.text(margin, 57, gap_text, 11, R"(fill="#444444")");
    const double legend_bottom = draw_legend(svg, legend, 68, width, a.jobs.size());

    const bool drawable = a.origin_ms && a.last_ms && (n > 0 || !a.intervals.empty());
    double height = legend_bottom + 40;
    if (!drawable) {
        svg.text(margin, legend_bottom + 20, "no partition events (SYNTH_START .. TAIL_END) in the logs", 13,
                 R"(fill="#666666")");
    } else {
        time_scale ts;
        ts.origin = *a.origin_ms;
        ts.span_ms = static_cast<double>(std::max<std::int64_t>(*a.last_ms - *a.origin_ms, 1));
        ts.x0 = x0;
        ts.width = plot_w;

        const double axis_top = legend_bottom + 22;
        const double bands_top = axis_top + 8;
        const double rows_top = bands_top + band_pitch * static_cast<double>(a.gpus.size()) + 8;
        const double rows_bottom = rows_top + row_h * static_cast<double>(n);
        const double axis_bottom = rows_bottom + 4;
        height = axis_bottom + 44;

        // Grid and axis labels above and below.
        const double step = tick_step_ms(ts.span_ms, plot_w);
        const int decimals = step >= 1000 ? 0 : step >= 100 ? 1 : step >= 10 ? 2 : 3;
        for (double t = 0; t <= ts.span_ms + 0.5; t += step) {
            const double x = ts.x(ts.origin + static_cast<std::int64_t>(std::llround(t)));
            svg.line(x, axis_top, x, axis_bottom, colour::grid);
            const std::string label = fmt::format("{:.{}f}", t / 1000.0, decimals);
            svg.text(x, axis_top - 4, label, 10, R"(text-anchor="middle" fill="#444444")");
            svg.text(x, axis_bottom + 13, label, 10, R"(text-anchor="middle" fill="#444444")");
        }
        svg.line(x0, axis_top, x0 + plot_w, axis_top, colour::muted);
        svg.line(x0, axis_bottom, x0 + plot_w, axis_bottom, colour::muted);
        svg.text(x0 + plot_w / 2, axis_bottom + 30,
                 fmt::format("time (s) since the first event, {}", utc(*a.origin_ms)), 11,
                 R"(text-anchor="middle")");

        if (a.warmup_end_ms) {
            const double xw = ts.x(*a.warmup_end_ms);
            svg.rect(x0, axis_top, xw - x0, axis_bottom - axis_top, "#000000", R"(fill-opacity="0.06")",
                     "warm-up: until the last GPU_END of the first job(s) on the GPU");
            svg.line(xw, axis_top, xw, axis_bottom, colour::muted, R"(stroke-dasharray="4,3")");
        }

        // One band per GPU: busy intervals (job strip above) and the gaps between them.
        for (std::size_t gi = 0; gi < a.gpus.size(); ++gi) {
            const gpu_stats& g = a.gpus[gi];
            const double y = bands_top + band_pitch * static_cast<double>(gi);
            svg.out += fmt::format("<g class=\"gpu\"><title>{}</title>\n",
                                   xml_escape(fmt::format("GPU {}: {} partitions under the lock, efficiency {} overall, "
                                                          "{} warm-up, {} steady state",
                                                          g.gpu, g.intervals, percent(g.all.efficiency()),
                                                          percent(g.warmup.efficiency()), percent(g.steady.efficiency()))));
            svg.text(margin, y + strip_h + 12, gpu_label(g), label_font, R"(font-weight="bold")");
            svg.rect(x0, y + strip_h, plot_w, band_h, colour::band);
            for (const gpu_interval& iv : a.intervals) {
                if (iv.gpu != g.gpu) continue;
                const double x = ts.x(iv.start), w = std::max(ts.x(iv.end) - x, 0.75);
                const std::string tip = fmt::format("job {} partition {}: {} ms under the lock", iv.job, iv.partition,
                                                    iv.end - iv.start);
                svg.rect(x, y, w, strip_h, colour_of(iv.job));
                svg.rect(x, y + strip_h, w, band_h, colour::gpu, {}, tip);
            }
            for (const gap& gp : a.gaps) {
                if (gp.gpu != g.gpu) continue;
                const double h = gp.ms() < 50 ? band_h / 3 : gp.ms() <= 500 ? band_h * 2 / 3 : band_h;
                const double x = ts.x(gp.from), w = std::max(ts.x(gp.to) - x, 1.0);
                svg.rect(x, y + strip_h + band_h - h, w, h, gp.stall ? colour::stall : colour::overhead, {},
                         fmt::format("gap of {} ms after job {} partition {}: {}", gp.ms(), gp.after_job,
                                     gp.after_partition, gp.stall ? "synthesis stall" : "overhead"));
            }
            svg.out += "</g>\n";
        }

        // One row per partition.
        const double bar_h = row_h >= 6 ? row_h - 2 : row_h - 0.5;
        std::optional<double> last_label_y;
        const partition_row* previous = nullptr;
        for (std::size_t i = 0; i < n; ++i) {
            const partition_row& p = a.partitions[i];
            const double y = rows_top + row_h * static_cast<double>(i);
            const double bar_y = y + (row_h - bar_h) / 2;
            const std::string job_col = colour_of(p.job);
            std::optional<std::int64_t> lock_from;
            if (p.gpu_start && p.lock_wait_ms) lock_from = *p.gpu_start - *p.lock_wait_ms;
            const bool gpu_open = p.gpu_start && (!p.gpu_end || *p.gpu_end < *p.gpu_start);
            const std::array<row_phase, 6> phases = {{
                {p.synth_start, p.synth_end, colour::synthesis, "synthesis"},
                {p.slot_ready, p.pickup, colour::ring_wait, "ring wait"},
                {p.pickup, lock_from ? lock_from : p.gpu_start, colour::prep, "prep"},
                {lock_from, p.gpu_start, colour::lock_wait, "lock wait"},
                {p.gpu_start, gpu_open ? std::nullopt : p.gpu_end, colour::gpu, "GPU", true},
                {p.gpu_end, p.tail_end, colour::tail, "tail"},
            }};
            std::string tip = fmt::format("job {} partition {}", p.job, p.partition);
            if (!p.gpu.empty()) {
                tip += fmt::format(" (GPU {}, worker {}, slot {})", p.gpu, p.worker.empty() ? "-" : p.worker,
                                   p.slot.empty() ? "-" : p.slot);
            }
            if (p.attempts > 1) tip += fmt::format(", {} attempts", p.attempts);
            for (const row_phase& ph : phases) tip += fmt::format("; {} {}", ph.name, opt_duration(ph.from, ph.to));
            if (gpu_open) tip += "; GPU_START without GPU_END";

            svg.out += fmt::format("<g class=\"row\"><title>{}</title>\n", xml_escape(tip));
            svg.rect(x0, y, plot_w, row_h, job_col, R"(fill-opacity="0.10")");
            svg.rect(x0 - 9, y + (row_h >= 6 ? 0.5 : 0), 6, row_h >= 6 ? row_h - 1 : row_h, job_col);
            if (row_labels) {
                svg.text(x0 - 13, y + row_h / 2 + row_font * 0.35, row_label(p), row_font,
                         R"(text-anchor="end")");
            } else if ((!previous || previous->job != p.job) && (!last_label_y || y - *last_label_y >= 10)) {
                // Rows too thin for a label each: the job's name where its rows begin.
                svg.text(x0 - 13, y + 8, "job " + shorten(p.job, max_job_chars), 9, R"(text-anchor="end")");
                last_label_y = y;
            }
            for (const row_phase& ph : phases) {
                if (!ph.from || !ph.to || *ph.to < *ph.from) continue;
                if (*ph.to == *ph.from && !ph.instant_counts) continue;
                const double x = ts.x(*ph.from);
                svg.rect(x, bar_y, std::max(ts.x(*ph.to) - x, 0.75), bar_h, ph.colour);
            }
            if (gpu_open) {
                const double x = ts.x(*p.gpu_start);
                svg.rect(x, bar_y, std::max(ts.x(*a.last_ms) - x, 0.75), bar_h, colour::gpu,
                         R"(fill-opacity="0.35" stroke="#59a14f" stroke-dasharray="3,2")");
            }
            svg.out += "</g>\n";
            previous = &p;
        }
    }

    std::string doc;
    doc += "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n";
    doc += fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
        "viewBox=\"0 0 {0:.0f} {1:.0f}\" font-family=\"sans-serif\" fill=\"{2}\">\n",
        width, std::ceil(height), colour::ink);
    doc += fmt::format("<title>{}</title>\n", xml_escape(title));
    doc += fmt::format("<desc>{}</desc>\n", xml_escape(counts + "; " + gap_text));
    doc += fmt::format("<rect x=\"0\" y=\"0\" width=\"{:.0f}\" height=\"{:.0f}\" fill=\"#ffffff\"/>\n", width,
                       std::ceil(height));
    doc += svg.out;
    doc += "</svg>\n";
    return doc;
}

}  // namespace cuzk::timeline
