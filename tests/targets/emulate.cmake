# Test programs for the emulated PMU (TDPROBE_BACKEND=emulate).
add_executable(emulate_threads ${CMAKE_CURRENT_LIST_DIR}/emulate_threads.c)
target_compile_options(emulate_threads PRIVATE ${TD_WARN} -O1)
target_link_libraries(emulate_threads PRIVATE pthread)
set_target_properties(emulate_threads PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})

add_library(emulate_lib SHARED ${CMAKE_CURRENT_LIST_DIR}/emulate_lib.c)
target_compile_options(emulate_lib PRIVATE ${TD_WARN} -O1 -fno-optimize-sibling-calls)
set_target_properties(emulate_lib PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
add_executable(emulate_regions ${CMAKE_CURRENT_LIST_DIR}/emulate_regions.c)
target_include_directories(emulate_regions PRIVATE ${CMAKE_SOURCE_DIR}/preload/include)
target_compile_options(emulate_regions PRIVATE ${TD_WARN} -O1)
target_link_libraries(emulate_regions PRIVATE emulate_lib pthread)
set_target_properties(emulate_regions PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR}
  BUILD_RPATH ${TD_TARGETS_DIR})
