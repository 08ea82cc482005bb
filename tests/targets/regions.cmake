# Test programs for function regions and the marker API (outputs in TD_TARGETS_DIR).
enable_language(CXX)
set(TD_REGIONS_SRC ${CMAKE_SOURCE_DIR}/tests/targets/regions)
set(TD_REGIONS_STRICT -Wall -Wextra -Werror -pedantic)

# Marker API: C workers, C++ RAII, header compile checks (C and C++).
add_executable(regions_markers ${TD_REGIONS_SRC}/markers.c)
target_include_directories(regions_markers PRIVATE ${CMAKE_SOURCE_DIR}/preload/include)
target_compile_options(regions_markers PRIVATE ${TD_REGIONS_STRICT} -O1)
target_link_libraries(regions_markers PRIVATE pthread)

add_executable(regions_markers_cxx ${TD_REGIONS_SRC}/markers_cxx.cpp)
target_include_directories(regions_markers_cxx PRIVATE ${CMAKE_SOURCE_DIR}/preload/include)
target_compile_options(regions_markers_cxx PRIVATE ${TD_REGIONS_STRICT} -O1)

add_executable(regions_header_c ${TD_REGIONS_SRC}/header_c.c)
target_include_directories(regions_header_c PRIVATE ${CMAKE_SOURCE_DIR}/preload/include)
target_compile_options(regions_header_c PRIVATE ${TD_REGIONS_STRICT} -std=c99)
set_target_properties(regions_header_c PROPERTIES C_STANDARD 99 C_EXTENSIONS OFF)

add_executable(regions_header_cxx ${TD_REGIONS_SRC}/header_cxx.cpp)
target_include_directories(regions_header_cxx PRIVATE ${CMAKE_SOURCE_DIR}/preload/include)
target_compile_options(regions_header_cxx PRIVATE ${TD_REGIONS_STRICT})
set_target_properties(regions_header_cxx PROPERTIES CXX_STANDARD 11 CXX_EXTENSIONS OFF)

# Unwinder scope: a C host that dlopens a C++ library which throws.
add_library(regions_throw SHARED ${TD_REGIONS_SRC}/throw_lib.cpp)
add_executable(regions_unwind_host ${TD_REGIONS_SRC}/unwind_host.c)
target_include_directories(regions_unwind_host PRIVATE ${CMAKE_SOURCE_DIR}/preload/include)
target_compile_options(regions_unwind_host PRIVATE ${TD_WARN})
target_link_libraries(regions_unwind_host PRIVATE dl)

# Symbolizer: a stripped library (no .symtab) for test_symbolize.
add_library(regions_stripped SHARED ${TD_REGIONS_SRC}/stripped_lib.c)
add_custom_command(TARGET regions_stripped POST_BUILD
  COMMAND ${CMAKE_STRIP} --strip-all $<TARGET_FILE:regions_stripped>)

# Overhead benchmark (scripts/bench-overhead): a ~10 ns function in a library.
add_library(regions_bench_lib SHARED ${TD_REGIONS_SRC}/bench_lib.c)
target_compile_options(regions_bench_lib PRIVATE -O2)
add_executable(regions_bench ${TD_REGIONS_SRC}/bench.c)
target_compile_options(regions_bench PRIVATE -O2 ${TD_WARN})
target_link_libraries(regions_bench PRIVATE regions_bench_lib)

set_target_properties(regions_markers regions_markers_cxx regions_header_c regions_header_cxx
  regions_unwind_host regions_bench PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
set_target_properties(regions_throw regions_stripped regions_bench_lib PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
set_target_properties(regions_bench PROPERTIES BUILD_RPATH ${TD_TARGETS_DIR})

if(TARGET test_symbolize)
  target_compile_definitions(test_symbolize PRIVATE TD_TARGETS_DIR="${TD_TARGETS_DIR}")
  add_dependencies(test_symbolize regions_stripped)
endif()

# Hooked regions end to end: nested and recursive library functions on 8 threads.
add_library(regions_hooked_lib SHARED ${TD_REGIONS_SRC}/hooked_lib.c)
target_compile_options(regions_hooked_lib PRIVATE -O1 -fno-optimize-sibling-calls)
add_executable(regions_hooked ${TD_REGIONS_SRC}/hooked.c)
target_compile_options(regions_hooked PRIVATE -O1 ${TD_WARN})
target_link_libraries(regions_hooked PRIVATE regions_hooked_lib pthread)
set_target_properties(regions_hooked PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR}
  BUILD_RPATH ${TD_TARGETS_DIR})
set_target_properties(regions_hooked_lib PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})

# td_region's own cost, linked with td_core (no preload): scripts/bench-overhead.
add_executable(regions_bench_core ${TD_REGIONS_SRC}/bench_core.c)
target_compile_options(regions_bench_core PRIVATE ${TD_WARN})
target_link_libraries(regions_bench_core PRIVATE td_core)
set_target_properties(regions_bench_core PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
