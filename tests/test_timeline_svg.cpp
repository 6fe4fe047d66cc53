// The timeline drawn as SVG: the document is well-formed and self-contained, every rect has a positive
// size, one row per partition and one band per GPU, the legend and the efficiency in the title, job ids
// escaped; zero, one and hundreds of partitions and partitions with missing events; rsvg-convert renders
// it to a PNG of real content; `cuzk timeline --svg` writes it, and names an unwritable path (exit 2).
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "common/daemon/timeline_log.hpp"
#include "common/daemon/timeline_svg.hpp"

namespace fs = std::filesystem;
namespace tl = cuzk::timeline;

namespace {

// One GPU, jobs A (2 partitions), "x<&y" (2) and C (1, GPU_START only: a worker that died under the lock).
// Under the lock: A/0 [1120,1220], A/1 [1235,1335], x/0 [1360,1460], x/1 [1910,2010]. Gaps: 15 ms and
// 25 ms overhead (the next partition was claimed), 450 ms synthesis stall (x/1 READY only at 1900).
// Warm-up = job A until 1335; steady 1335..2010 = 675 ms with 200 busy (29.6%); overall 400 of 890 (44.9%).
const char* fixture_log = R"(TIMELINE,1000,JOB_SUBMIT,A
TIMELINE,1000,JOB_SUBMIT,x<&y
TIMELINE,1005,SYNTH_START,A,partition=0
TIMELINE,1005,SYNTH_START,A,partition=1
TIMELINE,1100,SYNTH_END,A,partition=0
TIMELINE,1100,SLOT_READY,A,partition=0,slot=0
TIMELINE,1105,GPU_PICKUP,A,partition=0,worker=0,slot=0,gpu=0
TIMELINE,1120,LOCK_WAIT,A,partition=0,worker=0,ms=0
TIMELINE,1120,GPU_START,A,partition=0,worker=0,gpu=0
TIMELINE,1150,SYNTH_END,A,partition=1
TIMELINE,1150,SLOT_READY,A,partition=1,slot=1
TIMELINE,1155,GPU_PICKUP,A,partition=1,worker=1,slot=1,gpu=0
TIMELINE,1200,SYNTH_START,x<&y,partition=0
TIMELINE,1200,SYNTH_START,x<&y,partition=1
TIMELINE,1220,GPU_END,A,partition=0,worker=0,gpu=0
TIMELINE,1235,LOCK_WAIT,A,partition=1,worker=1,ms=60
TIMELINE,1235,GPU_START,A,partition=1,worker=1,gpu=0
TIMELINE,1260,TAIL_END,A,partition=0,worker=0,gpu=0
TIMELINE,1300,SYNTH_END,x<&y,partition=0
TIMELINE,1300,SLOT_READY,x<&y,partition=0,slot=0
TIMELINE,1335,GPU_END,A,partition=1,worker=1,gpu=0
TIMELINE,1340,GPU_PICKUP,x<&y,partition=0,worker=0,slot=0,gpu=0
TIMELINE,1360,LOCK_WAIT,x<&y,partition=0,worker=0,ms=0
TIMELINE,1360,GPU_START,x<&y,partition=0,worker=0,gpu=0
TIMELINE,1380,TAIL_END,A,partition=1,worker=1,gpu=0
TIMELINE,1390,JOB_DONE,A
TIMELINE,1460,GPU_END,x<&y,partition=0,worker=0,gpu=0
TIMELINE,1500,TAIL_END,x<&y,partition=0,worker=0,gpu=0
TIMELINE,1900,SYNTH_END,x<&y,partition=1
TIMELINE,1900,SLOT_READY,x<&y,partition=1,slot=1
TIMELINE,1905,GPU_PICKUP,x<&y,partition=1,worker=1,slot=1,gpu=0
TIMELINE,1910,LOCK_WAIT,x<&y,partition=1,worker=1,ms=0
TIMELINE,1910,GPU_START,x<&y,partition=1,worker=1,gpu=0
TIMELINE,2010,GPU_END,x<&y,partition=1,worker=1,gpu=0
TIMELINE,2050,TAIL_END,x<&y,partition=1,worker=1,gpu=0
TIMELINE,2060,JOB_DONE,x<&y
TIMELINE,2100,GPU_START,C,partition=0,worker=0,gpu=0
)";

tl::log_set read(const std::string& text, const std::string& name = "run.log") {
    tl::log_set logs;
    std::istringstream in(text);
    tl::read_log(in, name, logs);
    return logs;
}

struct rendered {
    tl::log_set logs;
    tl::analysis a;
    std::string svg;
};

rendered render(const std::string& text) {
    rendered r;
    r.logs = read(text);
    r.a = tl::analyze(r.logs);
    r.svg = tl::render_svg(r.a, r.logs);
    return r;
}

std::size_t count(const std::string& s, const std::string& part) {
    std::size_t n = 0;
    for (std::size_t pos = s.find(part); pos != std::string::npos; pos = s.find(part, pos + part.size())) ++n;
    return n;
}

// Well-formedness as far as this SVG needs it: one root, tags balanced and properly nested, attribute
// values quoted, every '&' the start of an entity. Returns what is wrong, or "".
std::string xml_problem(const std::string& s) {
    static const std::regex entity(R"(^&(amp|lt|gt|quot|apos|#[0-9]+|#x[0-9a-fA-F]+);)");
    for (std::size_t pos = s.find('&'); pos != std::string::npos; pos = s.find('&', pos + 1)) {
        if (!std::regex_search(s.substr(pos, 12), entity))
            return "a bare '&' at " + std::to_string(pos);
    }
    static const std::regex attribute(R"(^\s+[A-Za-z_:][-A-Za-z0-9_:.]*="[^"<]*")");
    std::vector<std::string> open;
    std::size_t roots = 0;
    for (std::size_t i = s.find('<'); i != std::string::npos; i = s.find('<', i)) {
        if (s.compare(i, 2, "<?") == 0) {
            i = s.find("?>", i);
            if (i == std::string::npos) return "an unterminated <?";
            continue;
        }
        std::size_t end = s.find('>', i);
        if (end == std::string::npos) return "an unterminated tag at " + std::to_string(i);
        std::string tag = s.substr(i + 1, end - i - 1);
        i = end + 1;
        if (tag.empty()) return "an empty tag";
        if (tag[0] == '/') {
            if (open.empty() || open.back() != tag.substr(1)) return "</" + tag.substr(1) + "> closes nothing open";
            open.pop_back();
            continue;
        }
        const bool self_closing = tag.back() == '/';
        if (self_closing) tag.pop_back();
        const std::size_t name_end = std::min(tag.find_first_of(" \t\n"), tag.size());
        const std::string name = tag.substr(0, name_end);
        if (name.empty()) return "a tag without a name";
        for (std::string rest = tag.substr(name_end); !rest.empty();) {
            if (rest.find_first_not_of(" \t\n") == std::string::npos) break;
            std::smatch m;
            if (!std::regex_search(rest, m, attribute)) return "<" + name + "> has a malformed attribute: " + rest;
            rest = m.suffix();
        }
        if (open.empty()) ++roots;
        if (!self_closing) open.push_back(name);
    }
    if (!open.empty()) return "<" + open.back() + "> is never closed";
    if (roots != 1) return std::to_string(roots) + " root elements";
    return "";
}

struct rect_box {
    double x, y, width, height;
};

std::vector<rect_box> rects(const std::string& svg) {
    static const std::regex rect(R"re(<rect x="([-0-9.]+)" y="([-0-9.]+)" width="([-0-9.]+)" height="([-0-9.]+)")re");
    std::vector<rect_box> out;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator(); ++it) {
        out.push_back({std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]), std::stod((*it)[4])});
    }
    return out;
}

// The group of partition row |i| (0-based), from "<g class="row">" to its "</g>".
std::string row_group(const std::string& svg, std::size_t i) {
    std::size_t pos = 0;
    for (std::size_t k = 0; k <= i; ++k) {
        pos = svg.find("<g class=\"row\">", k == 0 ? 0 : pos + 1);
        if (pos == std::string::npos) return "";
    }
    return svg.substr(pos, svg.find("</g>", pos) - pos);
}

void expect_sound(const std::string& svg) {
    EXPECT_EQ(xml_problem(svg), "");
    EXPECT_EQ(count(svg, "<rect"), rects(svg).size()) << "every rect starts x, y, width, height";
    for (const rect_box& r : rects(svg)) {
        EXPECT_GT(r.width, 0.0);
        EXPECT_GT(r.height, 0.0);
    }
    EXPECT_EQ(count(svg, "<script"), 0u);
    EXPECT_EQ(count(svg, "href"), 0u) << "self-contained: nothing linked";
}

std::string synthetic_partitions(int jobs, int partitions_per_job) {
    // Each job synthesises its partitions together, then they go under the lock one after another.
    std::string text;
    std::int64_t gpu_free = 0;
    for (int j = 0; j < jobs; ++j) {
        const std::int64_t t0 = 1000 + j * 400;
        for (int p = 0; p < partitions_per_job; ++p) {
            const std::int64_t ready = t0 + 300 + p * 3;
            const std::int64_t start = std::max(ready + 5, gpu_free + 2);
            text += fmt::format("TIMELINE,{},SYNTH_START,job{},partition={}\n", t0, j, p);
            text += fmt::format("TIMELINE,{},SYNTH_END,job{},partition={}\n", ready, j, p);
            text += fmt::format("TIMELINE,{},SLOT_READY,job{},partition={}\n", ready, j, p);
            text += fmt::format("TIMELINE,{},GPU_PICKUP,job{},partition={},gpu=0\n", ready + 2, j, p);
            text += fmt::format("TIMELINE,{},GPU_START,job{},partition={},gpu=0\n", start, j, p);
            text += fmt::format("TIMELINE,{},GPU_END,job{},partition={},gpu=0\n", start + 20, j, p);
            text += fmt::format("TIMELINE,{},TAIL_END,job{},partition={}\n", start + 30, j, p);
            gpu_free = start + 20;
        }
    }
    return text;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

bool on_path(const std::string& program) {
    return std::system(("command -v " + program + " >/dev/null 2>&1").c_str()) == 0;
}

class timeline_svg_files : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("cuzk-timeline-svg-" + std::to_string(::getpid()));
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }

    fs::path dir_;
};

// Decodes a non-interlaced 8-bit RGB/RGBA PNG with the standard library only and prints: width, height,
// distinct colours, colours covering at least 50 pixels, and pixels not of the most common colour.
const char* png_stats_py = R"(import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    pos += 12 + n
    if kind == b'IHDR':
        w, h, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
    elif kind == b'IDAT':
        idat += body
assert depth == 8 and ctype in (2, 6) and interlace == 0, (depth, ctype, interlace)
bpp = 4 if ctype == 6 else 3
stride = w * bpp
raw = zlib.decompress(idat)
prev = bytearray(stride)
counts = {}
for y in range(h):
    f = raw[y * (stride + 1)]
    line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    if f == 2:
        line = bytearray((v + u) & 255 for v, u in zip(line, prev))
    elif f != 0:
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            else:
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        px = bytes(line[x:x + bpp])
        counts[px] = counts.get(px, 0) + 1
    prev = line
print(w, h, len(counts), sum(1 for v in counts.values() if v >= 50), w * h - max(counts.values()))
)";

struct cli_result {
    int exit_code = -1;
    std::string out, err;
};

}  // namespace

TEST(timeline_svg, xml_escape_markup_controls_and_bad_utf8) {
    EXPECT_EQ(tl::xml_escape("a<&>\"'b"), "a&lt;&amp;&gt;&quot;&apos;b");
    EXPECT_EQ(tl::xml_escape("tab\tok, bell\a no"), "tab\tok, bell? no");
    EXPECT_EQ(tl::xml_escape("caf\xc3\xa9 \xe2\x80\x93 ok"), "caf\xc3\xa9 \xe2\x80\x93 ok");
    EXPECT_EQ(tl::xml_escape("bad \xff\xc3 end"), "bad ?? end");
    EXPECT_EQ(tl::xml_escape("surrogate \xed\xa0\x80"), "surrogate ???");
    EXPECT_EQ(tl::xml_escape("overlong \xc0\xaf"), "overlong ??");
}

TEST(timeline_svg, rows_bands_legend_title_and_escaping) {
    rendered r = render(fixture_log);
    ASSERT_EQ(r.a.partitions.size(), 5u);
    ASSERT_EQ(r.a.gpus.size(), 1u);
    expect_sound(r.svg);
    EXPECT_EQ(r.svg.rfind("<?xml version=\"1.0\"", 0), 0u);
    EXPECT_NE(r.svg.find(R"(<svg xmlns="http://www.w3.org/2000/svg" version="1.1")"), std::string::npos);
    EXPECT_NE(r.svg.find(R"(font-family="sans-serif")"), std::string::npos);

    EXPECT_EQ(count(r.svg, "<g class=\"row\">"), 5u);
    EXPECT_EQ(count(r.svg, "<g class=\"gpu\">"), 1u);
    for (const char* label : {"job A p 0", "job A p 1", "job x&lt;&amp;y p 0", "job x&lt;&amp;y p 1", "job C p 0"})
        EXPECT_NE(r.svg.find(label), std::string::npos) << label;
    EXPECT_EQ(r.svg.find("x<&y"), std::string::npos) << "the job id is escaped everywhere";

    for (const char* legend : {"synthesis", "ring wait", "prep", "lock wait", "GPU under the lock", "tail",
                               "gap: synthesis stall", "gap: overhead", "gap height", "warm-up", "job (strip"})
        EXPECT_NE(r.svg.find(legend), std::string::npos) << legend;

    // Steady 200 of 675 ms, overall 400 of 890 ms, in the document title and the visible one.
    EXPECT_NE(r.svg.find("<title>cuzk timeline: GPU efficiency 29.6% in the steady state (200 ms of 675 ms busy), "
                         "44.9% overall</title>"),
              std::string::npos)
        << r.svg.substr(0, 600);
    EXPECT_NE(r.svg.find("class=\"title\" font-weight=\"bold\">cuzk timeline: GPU efficiency 29.6%"), std::string::npos);
    EXPECT_NE(r.svg.find("synthesis stalls 1 (450 ms), overhead 2 (40 ms)"), std::string::npos);

    // Time axis in seconds, from the first event.
    EXPECT_NE(r.svg.find("time (s) since the first event"), std::string::npos);
    EXPECT_NE(r.svg.find(">0.0</text>"), std::string::npos);
    EXPECT_NE(r.svg.find(">1.0</text>"), std::string::npos);
}

TEST(timeline_svg, partial_rows_draw_the_phases_that_were_logged) {
    rendered r = render(fixture_log);
    // Rows sorted by first event: A/0, A/1, x/0, x/1, C/0. A row: tint + job strip, then a rect per phase.
    const std::string a1 = row_group(r.svg, 1);
    ASSERT_NE(a1.find("job A partition 1"), std::string::npos) << a1;
    // A/1: synthesis, ring wait, prep (1155..1175), lock wait (60 ms: 1175..1235), GPU, tail.
    EXPECT_EQ(count(a1, "<rect"), 2u + 6u) << a1;
    EXPECT_NE(a1.find("lock wait 60 ms"), std::string::npos) << a1;
    // A/0: no lock wait (ms=0): synthesis, ring wait, prep, GPU, tail.
    EXPECT_EQ(count(row_group(r.svg, 0), "<rect"), 2u + 5u);
    // C/0: only GPU_START: drawn faint to the last event, named in the tooltip.
    const std::string c0 = row_group(r.svg, 4);
    ASSERT_NE(c0.find("job C partition 0"), std::string::npos) << c0;
    EXPECT_EQ(count(c0, "<rect"), 2u + 1u) << c0;
    EXPECT_NE(c0.find("GPU_START without GPU_END"), std::string::npos);
    EXPECT_NE(c0.find("fill-opacity=\"0.35\""), std::string::npos);

    // The GPU band: 4 busy intervals (with their job strips) and 3 gaps, stall red and overhead orange.
    const std::size_t band = r.svg.find("<g class=\"gpu\">");
    const std::string gpu = r.svg.substr(band, r.svg.find("</g>", band) - band);
    EXPECT_EQ(count(gpu, "under the lock</title>"), 4u);
    EXPECT_EQ(count(gpu, "gap of "), 3u);
    EXPECT_EQ(count(gpu, "fill=\"#e15759\"><title>gap of 450 ms after job x&lt;&amp;y partition 0: synthesis stall"), 1u);
    EXPECT_EQ(count(gpu, "fill=\"#f28e2b\"><title>gap of "), 2u);
}

TEST(timeline_svg, no_partitions_and_no_events) {
    rendered r = render("TIMELINE,1000,JOB_SUBMIT,A\nTIMELINE,1500,JOB_DONE,A\n");
    ASSERT_TRUE(r.a.partitions.empty());
    expect_sound(r.svg);
    EXPECT_EQ(count(r.svg, "<g class=\"row\">"), 0u);
    EXPECT_NE(r.svg.find("no partition events"), std::string::npos);
    EXPECT_NE(r.svg.find("no GPU work in the logs"), std::string::npos);

    const std::string empty = tl::render_svg(tl::analysis{}, tl::log_set{});
    expect_sound(empty);
    EXPECT_NE(empty.find("no partition events"), std::string::npos);
}

TEST(timeline_svg, one_partition_is_all_warm_up) {
    rendered r = render(
        "TIMELINE,0,SYNTH_START,solo,partition=0\nTIMELINE,80,SYNTH_END,solo,partition=0\n"
        "TIMELINE,80,SLOT_READY,solo,partition=0\nTIMELINE,81,GPU_PICKUP,solo,partition=0\n"
        "TIMELINE,90,GPU_START,solo,partition=0\nTIMELINE,190,GPU_END,solo,partition=0\n");
    expect_sound(r.svg);
    EXPECT_EQ(count(r.svg, "<g class=\"row\">"), 1u);
    EXPECT_NE(r.svg.find("GPU efficiency 100.0% overall (100 ms of 100 ms busy; no steady state after the warm-up)"),
              std::string::npos);
    EXPECT_EQ(count(row_group(r.svg, 0), "<rect"), 2u + 4u);  // synthesis, ring wait, prep, GPU; no tail logged
}

TEST(timeline_svg, hundreds_of_partitions_stay_readable) {
    rendered r = render(synthetic_partitions(20, 20));
    ASSERT_EQ(r.a.partitions.size(), 400u);
    expect_sound(r.svg);
    EXPECT_EQ(count(r.svg, "<g class=\"row\">"), 400u);
    // Rows shrink rather than the image growing without bound; too thin for a label each, one per job.
    static const std::regex height(R"re(<svg [^>]*height="([0-9]+)")re");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.svg, m, height));
    EXPECT_LT(std::stoi(m[1]), 1600);
    EXPECT_EQ(count(r.svg, "job job7 p "), 0u);
    EXPECT_EQ(count(r.svg, ">job job7</text>"), 1u);
}

TEST_F(timeline_svg_files, rsvg_convert_renders_a_png_of_real_content) {
    ASSERT_TRUE(on_path("rsvg-convert")) << "rsvg-convert is not installed (Debian: librsvg2-bin; ./dev.sh installs it)";
    ASSERT_TRUE(on_path("python3")) << "python3 is not installed (decodes the PNG)";
    rendered r = render(fixture_log);
    std::ofstream(dir_ / "t.svg") << r.svg;
    std::ofstream(dir_ / "png_stats.py") << png_stats_py;
    const fs::path png = dir_ / "t.png", stats = dir_ / "stats", err = dir_ / "err";
    ASSERT_EQ(std::system(("rsvg-convert -o " + png.string() + " " + (dir_ / "t.svg").string() + " 2>" + err.string())
                              .c_str()),
              0)
        << slurp(err);
    ASSERT_EQ(std::system(("python3 " + (dir_ / "png_stats.py").string() + " " + png.string() + " >" +
                           stats.string() + " 2>" + err.string())
                              .c_str()),
              0)
        << slurp(err);
    std::istringstream in(slurp(stats));
    long w = 0, h = 0, colours = 0, solid_colours = 0, ink = 0;
    in >> w >> h >> colours >> solid_colours >> ink;
    EXPECT_EQ(w, 1200);
    EXPECT_GT(h, 200);
    // White, grid, band, job tints and strips, six phase colours, two gap colours.
    EXPECT_GE(solid_colours, 10) << colours << " colours";
    EXPECT_GT(ink, w * h / 10) << "pixels that are not background";
}

namespace {
cli_result run_cli(const fs::path& dir, const std::string& args) {
    const fs::path out = dir / "stdout", err = dir / "stderr";
    const int status =
        std::system((std::string(CUZK_CLI_PATH) + " " + args + " >" + out.string() + " 2>" + err.string()).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
}
}  // namespace

TEST_F(timeline_svg_files, cli_writes_the_svg_and_still_prints_the_report) {
    std::ofstream(dir_ / "run.log") << fixture_log;
    const fs::path svg = dir_ / "run.svg";
    cli_result r = run_cli(dir_, "timeline --svg " + svg.string() + " " + (dir_ / "run.log").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find("Waterfall"), std::string::npos) << r.out;
    const std::string text = slurp(svg);
    expect_sound(text);
    EXPECT_EQ(count(text, "<g class=\"row\">"), 5u);
    EXPECT_NE(text.find("29.6% in the steady state"), std::string::npos);

    r = run_cli(dir_, "timeline --json --svg " + svg.string() + " " + (dir_ / "run.log").string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("{", 0), 0u) << r.out;
}

TEST_F(timeline_svg_files, cli_names_an_unwritable_svg_path_and_exits_2) {
    std::ofstream(dir_ / "run.log") << fixture_log;
    const std::string bad = (dir_ / "no-such-folder" / "run.svg").string();
    cli_result r = run_cli(dir_, "timeline --svg " + bad + " " + (dir_ / "run.log").string());
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_NE(r.err.find(bad), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}
