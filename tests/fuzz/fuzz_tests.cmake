# The fuzz targets in the test suite (label "fuzz"): fuzz_build, a fixture, configures and builds the clang fuzz
# build (tests/fuzz/CMakeLists.txt, only fuzz_all) in <build>/fuzz; then each target runs under libFuzzer for
# CUZK_FUZZ_RUNS inputs (a fixed seed and count: the same inputs on every machine) over its seed corpus tests/fuzz/corpus/<target> (run_fuzz_target.sh). Without clang and its
# libFuzzer runtime the fixture fails naming the packages, and the targets' tests with it. docs/fuzzing.md.
set(CUZK_FUZZ_RUNS 20000 CACHE STRING "Inputs each fuzz target runs in the test suite")
set(CUZK_FUZZ_BUILD_DIR ${CMAKE_BINARY_DIR}/fuzz)

add_test(NAME fuzz_build COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/build_fuzz.sh ${PROJECT_SOURCE_DIR}
                                 ${CUZK_FUZZ_BUILD_DIR})
# About 2 minutes on two cores from nothing; a launcher the suite's build uses (ccache) serves the nested one too.
set_tests_properties(fuzz_build PROPERTIES FIXTURES_SETUP cuzk_fuzz_build LABELS fuzz TIMEOUT 1800)
if(CMAKE_CXX_COMPILER_LAUNCHER)
  set_tests_properties(fuzz_build PROPERTIES ENVIRONMENT "CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER}")
endif()

file(GLOB CUZK_FUZZ_TARGET_SOURCES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.cpp)
foreach(src ${CUZK_FUZZ_TARGET_SOURCES})
  get_filename_component(name ${src} NAME_WE)
  add_test(NAME ${name} COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/run_fuzz_target.sh
                                ${CUZK_FUZZ_BUILD_DIR}/tests/fuzz/${name} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${name}
                                ${CUZK_FUZZ_BUILD_DIR}/runs/${name} ${CUZK_FUZZ_RUNS})
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED cuzk_fuzz_build LABELS fuzz TIMEOUT 300)
endforeach()

# Writes the seed corpora from the encoders (tests/fuzz/make_fuzz_seeds.cpp); built on demand only:
#   cmake --build build --target make_fuzz_seeds && build/tests/make_fuzz_seeds tests/fuzz/corpus
add_executable(make_fuzz_seeds EXCLUDE_FROM_ALL ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/make_fuzz_seeds.cpp)
target_link_libraries(make_fuzz_seeds PRIVATE cuzk_api)
target_compile_definitions(make_fuzz_seeds PRIVATE CUZK_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
