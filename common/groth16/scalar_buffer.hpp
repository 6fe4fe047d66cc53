// The A and B scalars of a prepared partition: an array of field elements from a memory resource, sized
// without being written first. A std::pmr::vector would zero every element on resize (ff::fr_t's default
// constructor zeroes) and grows only by push_back from one thread; at the 32 GiB PoRep shape that serial
// compaction of ~175 M elements took 2.2 s on the H200 machine's CPU (bench_prepare), longer than the other gpud
// worker's whole turn under the CUDA lock (docs/benchmarks-history.md, commit 2d177ef). Filled in parallel by
// gather_dense (density_gather.hpp) instead.
//
// The memory resource is gpud's pool of page-locked buffers (gpud/cuda/pinned_pool.hpp) or the default one;
// it must outlive the buffer. Move-only.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <span>
#include <utility>

#include "common/ff/bls12_381.hpp"

namespace cuzk::groth16 {

class scalar_buffer {
public:
    explicit scalar_buffer(std::pmr::memory_resource* memory = std::pmr::get_default_resource()) : memory_(memory) {}
    ~scalar_buffer() { release(); }
    scalar_buffer(const scalar_buffer&) = delete;
    scalar_buffer& operator=(const scalar_buffer&) = delete;
    scalar_buffer(scalar_buffer&& o) noexcept
        : memory_(o.memory_), data_(std::exchange(o.data_, nullptr)), size_(std::exchange(o.size_, 0)),
          capacity_(std::exchange(o.capacity_, 0)) {}
    scalar_buffer& operator=(scalar_buffer&& o) noexcept {
        if (this != &o) {
            release();
            memory_ = o.memory_;
            data_ = std::exchange(o.data_, nullptr);
            size_ = std::exchange(o.size_, 0);
            capacity_ = std::exchange(o.capacity_, 0);
        }
        return *this;
    }

    // Room for |n| elements, none of them written: the caller constructs each one in place (gather_dense
    // copy-constructs them; ff::fr_t is trivially copyable and destructible, so nothing is destroyed). The
    // memory is kept when |n| fits, else replaced (the old contents are not kept).
    void resize_for_overwrite(std::size_t n) {
        if (n > capacity_) {
            release();
            data_ = static_cast<ff::fr_t*>(memory_->allocate(n * sizeof(ff::fr_t), alignof(ff::fr_t)));
            capacity_ = n;
        }
        size_ = n;
    }
    // Gives the memory back to the resource (the buffer is then empty).
    void release() noexcept {
        if (data_) memory_->deallocate(data_, capacity_ * sizeof(ff::fr_t), alignof(ff::fr_t));
        data_ = nullptr;
        size_ = capacity_ = 0;
    }
    // Forgets the memory without giving it back (gpud: memory the driver still holds registered must not be
    // handed out again).
    void leak() noexcept { data_ = nullptr, size_ = capacity_ = 0; }

    ff::fr_t* data() { return data_; }
    const ff::fr_t* data() const { return data_; }
    std::size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    ff::fr_t* begin() { return data_; }
    ff::fr_t* end() { return data_ + size_; }
    const ff::fr_t* begin() const { return data_; }
    const ff::fr_t* end() const { return data_ + size_; }
    ff::fr_t& operator[](std::size_t i) { return data_[i]; }
    const ff::fr_t& operator[](std::size_t i) const { return data_[i]; }
    operator std::span<const ff::fr_t>() const { return {data_, size_}; }
    std::pmr::memory_resource* memory() const { return memory_; }

private:
    std::pmr::memory_resource* memory_;
    ff::fr_t* data_ = nullptr;
    std::size_t size_ = 0, capacity_ = 0;
};

}  // namespace cuzk::groth16
