# Test programs for the injector (issue 2).
add_executable(t_threads ${CMAKE_CURRENT_LIST_DIR}/t_threads.c)
target_link_libraries(t_threads PRIVATE pthread)
set_target_properties(t_threads PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
add_executable(t_stderr_reuse ${CMAKE_CURRENT_LIST_DIR}/t_stderr_reuse.c)
set_target_properties(t_stderr_reuse PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
