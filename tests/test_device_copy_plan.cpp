// The copy plan of r1cs_witness::upload (gpud/cuda/copy_plan.hpp), on every machine: arrays back to back share
// one copy, gaps up to the limit are bridged, an array the device would see misaligned, one out of order and one
// too far away start copies of their own at aligned device offsets, empty arrays are skipped; and a ring slot's
// layout of a compact witness (inputs, then the serialized compact vector) takes one copy or two.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/ff/bls12_381.hpp"
#include "common/witness/compact_vector_builder.hpp"
#include "common/witness/compact_vector_serialization.hpp"
#include "gpud/cuda/copy_plan.hpp"

using namespace cuzk;
using cuzk::cuda::copy_plan;
using cuzk::cuda::host_array;
using cuzk::cuda::plan_copies;

namespace {

// Every array's bytes land at its device offset: the copies, replayed into a buffer, hold each array there.
void expect_arrays_in_place(const copy_plan& p, const std::vector<host_array>& arrays) {
    std::vector<std::byte> device(p.device_bytes);
    for (const auto& c : p.copies) {
        ASSERT_LE(c.device_offset + c.bytes, device.size());
        EXPECT_EQ(c.device_offset % cuda::copy_alignment, 0u);
        std::copy(c.host, c.host + c.bytes, device.begin() + std::ptrdiff_t(c.device_offset));
    }
    for (size_t i = 0; i < arrays.size(); ++i) {
        if (arrays[i].bytes == 0) continue;
        EXPECT_EQ(p.offset[i] % arrays[i].align, 0u) << "array " << i;
        const auto* h = static_cast<const std::byte*>(arrays[i].host);
        EXPECT_TRUE(std::equal(h, h + arrays[i].bytes, device.begin() + std::ptrdiff_t(p.offset[i]))) << "array " << i;
    }
}

std::vector<std::byte> numbered(size_t n) {
    std::vector<std::byte> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::byte(i * 7 + 3);
    return v;
}

TEST(DeviceCopyPlan, ArraysBackToBackShareOneCopy) {
    alignas(64) static std::byte block[1024];
    const auto src = numbered(sizeof block);
    std::copy(src.begin(), src.end(), block);
    const std::vector<host_array> arrays = {{block, 64, 16}, {block + 64, 128, 8}, {block + 192, 100, 4},
                                            {block + 292 + 12, 96, 16}};  // 12 bytes of padding before it
    const copy_plan p = plan_copies(arrays);
    ASSERT_EQ(p.copies.size(), 1u);
    EXPECT_EQ(p.copies[0].host, block);
    EXPECT_EQ(p.copies[0].bytes, 400u);
    EXPECT_EQ(p.copied_bytes, 400u);
    EXPECT_EQ(p.device_bytes, 400u);
    EXPECT_EQ(p.offset, (std::vector<size_t>{0, 64, 192, 304}));
    expect_arrays_in_place(p, arrays);
}

TEST(DeviceCopyPlan, MisalignedFarOrOutOfOrderArraysTakeCopiesOfTheirOwn) {
    alignas(64) static std::byte block[4096];
    const auto src = numbered(sizeof block);
    std::copy(src.begin(), src.end(), block);
    // 8 bytes off the 16-byte boundary the device reads fr values at.
    std::vector<host_array> arrays = {{block, 64, 16}, {block + 64, 40, 8}, {block + 104, 64, 16}};
    copy_plan p = plan_copies(arrays);
    ASSERT_EQ(p.copies.size(), 2u);
    EXPECT_EQ(p.offset[2], 256u) << "its own copy, at the next aligned device offset";
    EXPECT_EQ(p.device_bytes, 256u + 64u);
    expect_arrays_in_place(p, arrays);

    arrays = {{block, 64, 16}, {block + 64 + 65, 32, 1}};  // a gap of 65 bytes: beyond the default 64
    p = plan_copies(arrays);
    EXPECT_EQ(p.copies.size(), 2u);
    EXPECT_EQ(plan_copies(arrays, 65).copies.size(), 1u);
    expect_arrays_in_place(p, arrays);

    arrays = {{block + 512, 64, 16}, {block, 64, 16}, {block + 64, 64, 16}};  // the second before the first
    p = plan_copies(arrays);
    EXPECT_EQ(p.copies.size(), 2u);
    EXPECT_EQ(p.offset, (std::vector<size_t>{0, 256, 320}));
    expect_arrays_in_place(p, arrays);

    arrays = {{block, 0, 16}, {block + 32, 64, 16}, {nullptr, 0, 8}, {block + 96, 16, 16}};
    p = plan_copies(arrays);
    ASSERT_EQ(p.copies.size(), 1u);
    EXPECT_EQ(p.copies[0].host, block + 32);
    EXPECT_EQ(p.copied_bytes, 80u);
    expect_arrays_in_place(p, arrays);

    EXPECT_TRUE(plan_copies(std::vector<host_array>{}).copies.empty());
    EXPECT_THROW(plan_copies(std::vector<host_array>{{block, 8, 3}}), std::invalid_argument);
    EXPECT_THROW(plan_copies(std::vector<host_array>{{block, 8, 512}}), std::invalid_argument);
}

// Inputs, then the compact vector as witness::write lays it out (a ring slot's payload after its header): one
// copy where the full values fall on a 16-byte boundary relative to the inputs, two where they do not; every
// array in place either way.
TEST(DeviceCopyPlan, ARingSlotsWitnessTakesOneCopyOrTwo) {
    for (size_t values : {size_t(64 * 6), size_t(64 * 7 - 5)}) {  // ceil(blocks / 2) odd, then even
        SCOPED_TRACE(values);
        witness::compact_vector_builder b;
        for (size_t i = 0; i < values; ++i)
            b.push_back(i % 11 == 0 ? ff::fr_t::from_u64(i + 2) : i % 3 == 0 ? ff::fr_t::one() : ff::fr_t::zero());
        const witness::compact_vector_view v = b.view();
        const std::vector<ff::fr_t> inputs = {ff::fr_t::one(), ff::fr_t::from_u64(5)};
        std::vector<std::uint64_t> slot(4096);  // 8-byte aligned, as read() needs
        auto* bytes = reinterpret_cast<std::byte*>(slot.data());
        std::copy_n(reinterpret_cast<const std::byte*>(inputs.data()), inputs.size() * 32, bytes);
        const size_t at = inputs.size() * 32;
        const std::span<std::byte> rest(bytes + at, slot.size() * 8 - at);
        witness::write(rest, v);
        const witness::compact_vector_view in_slot = witness::read(rest);
        const std::vector<host_array> arrays = {
            {bytes, at, 16},
            {in_slot.full_mask.data(), in_slot.full_mask.size_bytes(), 8},
            {in_slot.bit_value.data(), in_slot.bit_value.size_bytes(), 8},
            {in_slot.full_before.data(), in_slot.full_before.size_bytes(), 4},
            {in_slot.full.data(), in_slot.full.size_bytes(), 16}};
        const copy_plan p = plan_copies(arrays);
        const size_t blocks = v.blocks();
        EXPECT_EQ(p.copies.size(), (blocks + 1) / 2 % 2 == 0 ? 1u : 2u) << blocks << " blocks";
        expect_arrays_in_place(p, arrays);
    }
}

}  // namespace
