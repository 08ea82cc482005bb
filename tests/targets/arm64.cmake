# Test programs for the arm64 VM suite (tests/vm, scripts/qemu-arm64-test).
if(TD_ARCH STREQUAL "aarch64")
  # Self-contained: checks the test bed without tdprobe code.
  add_executable(td-vm-rawcount ${CMAKE_SOURCE_DIR}/tests/targets/arm64/td_vm_rawcount.c)
  target_compile_options(td-vm-rawcount PRIVATE ${TD_WARN} -O2)
  set_target_properties(td-vm-rawcount PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
  # Drives the arm64 backend through td_core.
  add_executable(td-vm-backend ${CMAKE_SOURCE_DIR}/tests/targets/arm64/td_vm_backend.c)
  target_compile_options(td-vm-backend PRIVATE ${TD_WARN} -O2)
  target_link_libraries(td-vm-backend PRIVATE td_core)
  set_target_properties(td-vm-backend PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
  # Functions to hook, in a library so calls go through the PLT.
  add_library(tdvm SHARED ${CMAKE_SOURCE_DIR}/tests/targets/arm64/td_vm_lib.c)
  target_compile_options(tdvm PRIVATE ${TD_WARN} -O2)
  set_target_properties(tdvm PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
  # Exact per-region instruction counts through the preload (markers, hooks).
  add_executable(td-vm-regions ${CMAKE_SOURCE_DIR}/tests/targets/arm64/td_vm_regions.c)
  target_include_directories(td-vm-regions PRIVATE ${CMAKE_SOURCE_DIR}/preload/include)
  target_compile_options(td-vm-regions PRIVATE ${TD_WARN} -O2)
  target_link_libraries(td-vm-regions PRIVATE tdvm pthread)
  set_target_properties(td-vm-regions PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
  # fork, exec, thread exit under the preload.
  add_executable(td-vm-lifecycle ${CMAKE_SOURCE_DIR}/tests/targets/arm64/td_vm_lifecycle.c)
  target_compile_options(td-vm-lifecycle PRIVATE ${TD_WARN} -O2)
  target_link_libraries(td-vm-lifecycle PRIVATE tdvm pthread)
  set_target_properties(td-vm-lifecycle PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
  # AAPCS64 argument/return kinds through the hook trampoline.
  add_executable(td-vm-abi ${CMAKE_SOURCE_DIR}/tests/targets/arm64/td_vm_abi.c)
  target_compile_options(td-vm-abi PRIVATE ${TD_WARN} -O2)
  target_link_libraries(td-vm-abi PRIVATE tdvm)
  set_target_properties(td-vm-abi PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
endif()
