# Test programs for the arm64 VM suite (tests/vm, scripts/qemu-arm64-test).
if(TD_ARCH STREQUAL "aarch64")
  foreach(name td_vm_rawcount)
    string(REPLACE "_" "-" exe ${name})
    add_executable(${exe} ${CMAKE_SOURCE_DIR}/tests/targets/arm64/${name}.c)
    target_compile_options(${exe} PRIVATE ${TD_WARN} -O2)
    set_target_properties(${exe} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
  endforeach()
endif()
