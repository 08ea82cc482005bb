# Test programs of the function hooks (tests/integration/hooks_*.sh,
# tests/unit/test_got.c). Libraries are built -O2 with default (interposable)
# symbol binding so that calls between their exported functions use the PLT.
enable_language(CXX)
set(TD_HOOKS_SRC ${CMAKE_SOURCE_DIR}/tests/targets/hooks)

# The ABI torture test is written for the SysV x86_64 ABI (immintrin.h).
if(TD_ARCH STREQUAL "x86_64")
add_library(tdabi SHARED ${TD_HOOKS_SRC}/abi_lib.c)
target_compile_options(tdabi PRIVATE ${TD_WARN} -O2)
set_target_properties(tdabi PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})

add_executable(hooks_abi ${TD_HOOKS_SRC}/abi_main.c ${TD_HOOKS_SRC}/abi_noplt.c)
set_source_files_properties(${TD_HOOKS_SRC}/abi_noplt.c PROPERTIES COMPILE_OPTIONS -fno-plt)
target_compile_options(hooks_abi PRIVATE ${TD_WARN} -O2)
target_link_libraries(hooks_abi PRIVATE tdabi)
set_target_properties(hooks_abi PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
endif()

add_library(tdhk SHARED ${TD_HOOKS_SRC}/hk_lib.c)
target_compile_options(tdhk PRIVATE ${TD_WARN} -O2)
set_target_properties(tdhk PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
foreach(name hooks_longjmp hooks_signal hooks_threads hooks_recursion)
  add_executable(${name} ${TD_HOOKS_SRC}/${name}.c)
  target_compile_options(${name} PRIVATE ${TD_WARN} -O2)
  target_link_libraries(${name} PRIVATE tdhk pthread)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
endforeach()

add_library(tddl SHARED ${TD_HOOKS_SRC}/dl_lib.c)
target_compile_options(tddl PRIVATE ${TD_WARN} -O2)
set_target_properties(tddl PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
add_executable(hooks_dlopen ${TD_HOOKS_SRC}/hooks_dlopen.c)
target_compile_options(hooks_dlopen PRIVATE ${TD_WARN} -O2)
target_link_libraries(hooks_dlopen PRIVATE dl)
set_target_properties(hooks_dlopen PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})

add_library(tdcx SHARED ${TD_HOOKS_SRC}/cx_lib.cpp)
target_compile_options(tdcx PRIVATE -Wall -Wextra -O2)
set_target_properties(tdcx PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
add_executable(hooks_cxx ${TD_HOOKS_SRC}/hooks_cxx.cpp)
target_compile_options(hooks_cxx PRIVATE -Wall -Wextra -O2)
target_link_libraries(hooks_cxx PRIVATE tdcx)
set_target_properties(hooks_cxx PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${TD_TARGETS_DIR})
