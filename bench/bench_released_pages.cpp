// What giving a large host buffer's pages back to the kernel costs (util::released_pages: mprotect PROT_NONE, then
// madvise MADV_DONTNEED over its whole pages), as gpud's CUDA backend does with a parameter set's point vectors
// once they are uploaded (51 GB for a 32 GiB PoRep set, read from its file into 4 KiB pages), and restoring them
// when the set goes. Each iteration fills a fresh buffer (not timed), then times the release, then the restore.
// bytes_per_second is the release's rate.
//
//   bench_released_pages [--benchmark_filter=/4096]     (the 4 GiB case takes 4 GiB of memory)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>

#include "common/util/released_pages.hpp"

namespace {

void release_and_restore(benchmark::State& state) {
    const size_t bytes = size_t(state.range(0)) << 20;
    double restore_s = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto buffer = std::make_unique<std::byte[]>(bytes);
        std::memset(buffer.get(), 0x5a, bytes);  // every page resident, as a read parameters file's are
        state.ResumeTiming();
        auto pages = std::make_unique<cuzk::util::released_pages>(buffer.get(), bytes);
        state.PauseTiming();
        if (pages->bytes() == 0) state.SkipWithError(("nothing released: " + pages->error()).c_str());
        const auto t0 = std::chrono::steady_clock::now();
        pages.reset();
        restore_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        buffer.reset();
        state.ResumeTiming();
    }
    state.SetBytesProcessed(int64_t(state.iterations()) * int64_t(bytes));
    state.counters["restore_ms"] = benchmark::Counter(restore_s * 1e3 / double(state.iterations()));
}

}  // namespace

// The argument is the buffer's MiB.
BENCHMARK(release_and_restore)->Arg(256)->Unit(benchmark::kMillisecond);
BENCHMARK(release_and_restore)->Arg(4096)->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
