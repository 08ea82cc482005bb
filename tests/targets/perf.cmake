# Test programs for the perf backend (tests/integration/perf_*.sh).
add_executable(perf_pages ${CMAKE_CURRENT_LIST_DIR}/perf_pages.c)
target_compile_options(perf_pages PRIVATE ${TD_WARN} -O1)
target_link_libraries(perf_pages PRIVATE pthread)
set_target_properties(perf_pages PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
