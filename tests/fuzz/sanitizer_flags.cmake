# Compiler flags of the fuzz build (CUZK_FUZZ=ON): every library compiled with libFuzzer's coverage
# instrumentation and AddressSanitizer (-fsanitize=fuzzer-no-link,address), so the fuzzer is guided by the
# decoders' own branches and an out-of-bounds read is caught where it happens; the fuzz targets link libFuzzer
# (tests/fuzz/CMakeLists.txt). -O1 and line tables only (no full debug info) keep the instrumented build quick to
# compile while a crash's stack still names files and lines; NDEBUG stays off: a failed assert() is a finding too.
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
  message(FATAL_ERROR "CUZK_FUZZ=ON needs clang with libFuzzer: -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_C_COMPILER=clang "
                      "(Debian 12: apt-get install clang libclang-rt-14-dev), not ${CMAKE_CXX_COMPILER_ID}")
endif()
include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS "-fsanitize=fuzzer,address")
set(CMAKE_REQUIRED_LINK_OPTIONS "-fsanitize=fuzzer,address")
check_cxx_source_compiles([[
#include <cstddef>
#include <cstdint>
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t*, std::size_t) { return 0; }
]] CUZK_HAVE_LIBFUZZER)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(NOT CUZK_HAVE_LIBFUZZER)
  message(FATAL_ERROR "CUZK_FUZZ=ON: ${CMAKE_CXX_COMPILER} cannot link -fsanitize=fuzzer,address; the libFuzzer and "
                      "AddressSanitizer runtimes are missing (Debian 12: apt-get install libclang-rt-14-dev)")
endif()

set(CMAKE_CXX_FLAGS_RELEASE "-O1 -gline-tables-only")
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O1 -gline-tables-only")
add_compile_options($<$<COMPILE_LANGUAGE:CXX>:-fsanitize=fuzzer-no-link,address>
                    $<$<COMPILE_LANGUAGE:CXX>:-fno-omit-frame-pointer>)
