// Page-locked host buffers kept from one partition to the next, as a std::pmr::memory_resource: gpud's CUDA
// backend builds each partition's A and B scalar vectors in them, so their copies to the device go at the link's
// rate without a cudaHostRegister per partition. A registration (or cudaHostAlloc) blocks the CUDA calls of the
// process's other threads while it runs (an H200 measured the lock holder's kernels 48x slower beside a thread
// pinning in a loop; docs/benchmarks-history.md); with the buffers reused, only the first partitions of a circuit
// shape pay it.
//
//   cuda::pinned_pool pool(gpu, 32 << 20, 16ull << 30);
//   groth16::scalar_buffer v(&pool);  v.resize_for_overwrite(n);   // page-locked when n * 32 bytes >= 32 MiB
//   ... copies from v ...; pool.contains(v.data(), bytes) says whether it is page-locked
//
// Requests below |min_bytes| go to the default resource (plain heap). A larger request takes the smallest free
// cached buffer that holds it, else a new page-locked one; when the driver refuses (no GPU, a memory-lock limit)
// it is served from the plain heap instead and counted, never failing for want of page-locked memory. Returned
// page-locked buffers are cached; beyond |max_cached_bytes| of free buffers the oldest are given back. Thread
// safe. The pool must outlive every buffer using it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory_resource>
#include <mutex>
#include <vector>

namespace cuzk::cuda {

class pinned_pool final : public std::pmr::memory_resource {
public:
    // How page-locked memory is obtained and given back (cudaHostAlloc / cudaFreeHost by default; tests
    // substitute their own). |lock| returns null when refused.
    struct allocator {
        void* (*lock)(int device, size_t bytes);
        void (*unlock)(void* p);
    };
    static allocator cuda_allocator();

    pinned_pool(int device, size_t min_bytes, size_t max_cached_bytes, allocator a = cuda_allocator());
    ~pinned_pool() override;  // gives back the cached buffers (every vector must be gone by then)
    pinned_pool(const pinned_pool&) = delete;
    pinned_pool& operator=(const pinned_pool&) = delete;

    // Whether [p, p + n) lies inside a page-locked buffer now handed out by this pool.
    bool contains(const void* p, size_t n) const;

    struct stats {
        uint64_t locked_new = 0;       // page-locked buffers obtained (each one a blocking driver call)
        uint64_t reused = 0;           // requests served from a cached buffer
        uint64_t refused = 0;          // requests the driver refused, served from the plain heap
        uint64_t given_back = 0;       // cached buffers given back over the cap
        uint64_t locked_bytes = 0;     // page-locked bytes held now (handed out and cached)
        uint64_t cached_bytes = 0;     // of those, free in the cache
    };
    stats snapshot() const;

private:
    void* do_allocate(size_t bytes, size_t alignment) override;
    void do_deallocate(void* p, size_t bytes, size_t alignment) override;
    bool do_is_equal(const std::pmr::memory_resource& o) const noexcept override { return this == &o; }

    struct buffer {
        void* p;
        size_t capacity;
        bool locked;  // false: a plain-heap stand-in for a refused request
    };
    int device_;
    size_t min_bytes_, max_cached_bytes_;
    allocator alloc_;
    mutable std::mutex mu_;
    std::vector<buffer> free_;               // cached page-locked buffers, oldest first
    std::map<const void*, buffer> in_use_;   // handed out, by address
    stats stats_;
};

}  // namespace cuzk::cuda
