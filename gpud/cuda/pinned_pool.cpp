// pinned_pool.hpp. Host code only, compiled by the host compiler against the CUDA runtime's headers.
#include "gpud/cuda/pinned_pool.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <new>

namespace cuzk::cuda {

namespace {
// Page-locked buffers are page aligned, which covers any alignment a vector asks for.
constexpr size_t PAGE = 4096;

void* cuda_lock(int device, size_t bytes) {
    void* p = nullptr;
    if (cudaSetDevice(device) != cudaSuccess || cudaHostAlloc(&p, bytes, cudaHostAllocPortable) != cudaSuccess) {
        (void)cudaGetLastError();  // a refusal is not an error of later launches
        return nullptr;
    }
    return p;
}
void cuda_unlock(void* p) {
    if (cudaFreeHost(p) != cudaSuccess) (void)cudaGetLastError();
}
}  // namespace

pinned_pool::allocator pinned_pool::cuda_allocator() { return {cuda_lock, cuda_unlock}; }

pinned_pool::pinned_pool(int device, size_t min_bytes, size_t max_cached_bytes, allocator a)
    : device_(device), min_bytes_(min_bytes), max_cached_bytes_(max_cached_bytes), alloc_(a) {}

pinned_pool::~pinned_pool() {
    // Vectors still holding buffers would be a use-after-free bug of the owner; the cached ones are given back.
    for (const auto& b : free_) alloc_.unlock(b.p);
}

void* pinned_pool::do_allocate(size_t bytes, size_t alignment) {
    if (bytes < min_bytes_ || alignment > PAGE)
        return std::pmr::get_default_resource()->allocate(bytes, alignment);
    std::lock_guard lk(mu_);
    // The smallest cached buffer that holds the request: one circuit shape asks for the same sizes every time.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->capacity >= bytes && (best == free_.end() || it->capacity < best->capacity)) best = it;
    if (best != free_.end()) {
        buffer b = *best;
        free_.erase(best);
        stats_.cached_bytes -= b.capacity;
        ++stats_.reused;
        in_use_.emplace(b.p, b);
        return b.p;
    }
    const size_t capacity = (bytes + PAGE - 1) / PAGE * PAGE;
    buffer b{alloc_.lock(device_, capacity), capacity, true};
    if (b.p == nullptr) {
        ++stats_.refused;
        b = {::operator new(bytes, std::align_val_t(alignment)), bytes, false};
    } else {
        ++stats_.locked_new;
        stats_.locked_bytes += capacity;
    }
    in_use_.emplace(b.p, b);
    return b.p;
}

void pinned_pool::do_deallocate(void* p, size_t bytes, size_t alignment) {
    if (bytes < min_bytes_ || alignment > PAGE)
        return std::pmr::get_default_resource()->deallocate(p, bytes, alignment);
    std::vector<void*> give_back;
    {
        std::lock_guard lk(mu_);
        auto it = in_use_.find(p);
        if (it == in_use_.end()) return;  // not ours: nothing sane to do with it
        const buffer b = it->second;
        in_use_.erase(it);
        if (!b.locked) {
            ::operator delete(b.p, std::align_val_t(alignment));
            return;
        }
        free_.push_back(b);
        stats_.cached_bytes += b.capacity;
        while (stats_.cached_bytes > max_cached_bytes_ && !free_.empty()) {
            stats_.cached_bytes -= free_.front().capacity;
            stats_.locked_bytes -= free_.front().capacity;
            ++stats_.given_back;
            give_back.push_back(free_.front().p);
            free_.erase(free_.begin());
        }
    }
    for (void* q : give_back) alloc_.unlock(q);  // outside the mutex: the driver call may take a while
}

bool pinned_pool::contains(const void* p, size_t n) const {
    std::lock_guard lk(mu_);
    auto it = in_use_.upper_bound(p);
    if (it == in_use_.begin()) return false;
    --it;
    const auto* lo = static_cast<const unsigned char*>(it->first);
    const auto* at = static_cast<const unsigned char*>(p);
    return it->second.locked && n <= it->second.capacity && size_t(at - lo) <= it->second.capacity - n;
}

pinned_pool::stats pinned_pool::snapshot() const {
    std::lock_guard lk(mu_);
    return stats_;
}

}  // namespace cuzk::cuda
