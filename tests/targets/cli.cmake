# Test programs of the tdprobe command and report tool (tests/integration/cli_*.sh).
add_executable(td-synth-report ${CMAKE_SOURCE_DIR}/tests/targets/report_synth.c
  ${CMAKE_SOURCE_DIR}/collector/td_json.c)
target_include_directories(td-synth-report PRIVATE ${CMAKE_SOURCE_DIR}/collector)
target_compile_options(td-synth-report PRIVATE ${TD_WARN})
set_target_properties(td-synth-report PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})

add_executable(td-fork-workers ${CMAKE_SOURCE_DIR}/tests/targets/fork_workers.c)
target_compile_options(td-fork-workers PRIVATE ${TD_WARN} -O1)
set_target_properties(td-fork-workers PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})

add_executable(td-exit-status ${CMAKE_SOURCE_DIR}/tests/targets/exit_status.c)
target_compile_options(td-exit-status PRIVATE ${TD_WARN})
set_target_properties(td-exit-status PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
