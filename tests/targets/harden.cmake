# Test programs for hardening (issue 7): signals, limits, odd programs.
foreach(t t_signal t_limits t_odd)
  add_executable(${t} ${CMAKE_CURRENT_LIST_DIR}/${t}.c)
  target_link_libraries(${t} PRIVATE pthread dl)
  target_compile_options(${t} PRIVATE -Wall -Wextra -Wno-unused-result)
  set_target_properties(${t} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
endforeach()

# The corpus replay test needs the report reader (collector/report/, added
# after this file is included: the name resolves at generation time).
if(TARGET test_fuzz_replay AND EXISTS ${CMAKE_SOURCE_DIR}/collector/report/CMakeLists.txt)
  target_link_libraries(test_fuzz_replay PRIVATE td_report)
endif()

# ThreadSanitizer driver (build-tsan, -DTD_TSAN=ON): the collector's
# threading without Criterion, which cannot run under TSan.
if(TD_TSAN)
  add_executable(tsan_collector ${CMAKE_SOURCE_DIR}/tests/tsan/tsan_collector.c)
  target_link_libraries(tsan_collector PRIVATE td_core)
  set_target_properties(tsan_collector PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/unit)
endif()
