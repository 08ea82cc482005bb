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

# Static and set-user-ID programs for the launcher's warnings; static only
# when the C library's archive is installed (libc6-dev).
add_executable(t_dynamic ${CMAKE_CURRENT_LIST_DIR}/t_static.c)
set_target_properties(t_dynamic PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
find_file(TD_LIBC_A libc.a PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE} NO_DEFAULT_PATH)
if(TD_LIBC_A)
  add_executable(t_static ${CMAKE_CURRENT_LIST_DIR}/t_static.c)
  target_link_options(t_static PRIVATE -static)
  set_target_properties(t_static PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
endif()

# dlclose of a library with hooked call sites while threads run.
add_library(tddlc SHARED ${CMAKE_CURRENT_LIST_DIR}/t_dlclose_lib.c)
set_target_properties(tddlc PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
add_executable(t_dlclose ${CMAKE_CURRENT_LIST_DIR}/t_dlclose.c)
target_link_libraries(t_dlclose PRIVATE pthread dl)
set_target_properties(t_dlclose PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
