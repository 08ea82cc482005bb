# Test programs for the emulated PMU (TDPROBE_BACKEND=emulate).
add_executable(emulate_threads ${CMAKE_CURRENT_LIST_DIR}/emulate_threads.c)
target_compile_options(emulate_threads PRIVATE ${TD_WARN} -O1)
target_link_libraries(emulate_threads PRIVATE pthread)
set_target_properties(emulate_threads PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
