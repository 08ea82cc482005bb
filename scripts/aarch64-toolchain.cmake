# Cross-compiling tdprobe for aarch64 with Debian's gcc-aarch64-linux-gnu.
#
#   scripts/arm64-sysroot      # once: fills ~/.cache/tdprobe-arm64
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=scripts/aarch64-toolchain.cmake
#   cmake --build build-arm64 -j2
#
# glibc comes from the cross toolchain (libc6-dev-arm64-cross); inih, libunwind
# and Criterion come from the :arm64 packages that scripts/arm64-sysroot
# extracted. Sysroot: -DTD_ARM64_SYSROOT=..., else $TDPROBE_ARM64_CACHE/sysroot,
# else ~/.cache/tdprobe-arm64/sysroot. Unit tests run under qemu-user through
# CMAKE_CROSSCOMPILING_EMULATOR (ctest works as usual).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_ASM_COMPILER aarch64-linux-gnu-gcc)

if(NOT TD_ARM64_SYSROOT)
  if(DEFINED ENV{TDPROBE_ARM64_CACHE})
    set(TD_ARM64_SYSROOT "$ENV{TDPROBE_ARM64_CACHE}/sysroot")
  else()
    set(TD_ARM64_SYSROOT "$ENV{HOME}/.cache/tdprobe-arm64/sysroot")
  endif()
endif()
set(TD_ARM64_SYSROOT "${TD_ARM64_SYSROOT}" CACHE PATH "extracted :arm64 packages (scripts/arm64-sysroot)")
# try_compile projects re-read this file: hand them the sysroot too.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TD_ARM64_SYSROOT)
if(NOT EXISTS "${TD_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu")
  message(FATAL_ERROR "no arm64 sysroot at ${TD_ARM64_SYSROOT}: run scripts/arm64-sysroot")
endif()

set(_lib "${TD_ARM64_SYSROOT}/usr/lib/aarch64-linux-gnu")
set(CMAKE_FIND_ROOT_PATH "${TD_ARM64_SYSROOT}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The sysroot holds only non-libc headers, so -isystem cannot shadow glibc's.
set(CMAKE_C_FLAGS_INIT
  "-isystem ${TD_ARM64_SYSROOT}/usr/include -isystem ${TD_ARM64_SYSROOT}/usr/include/aarch64-linux-gnu")
set(_ld "-L${_lib} -Wl,-rpath-link,${_lib} -Wl,-rpath-link,${TD_ARM64_SYSROOT}/lib/aarch64-linux-gnu")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_ld}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_ld}")

set(ENV{PKG_CONFIG_LIBDIR} "${_lib}/pkgconfig:${TD_ARM64_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "${TD_ARM64_SYSROOT}")
set(ENV{PKG_CONFIG_PATH} "")

find_program(TD_QEMU_AARCH64 qemu-aarch64)
if(TD_QEMU_AARCH64)
  # Criterion re-executes the test binary: its children need binfmt_misc
  # (scripts/qemu-arm64-test registers it) and QEMU_LD_PREFIX, not -L.
  set(CMAKE_CROSSCOMPILING_EMULATOR "env;QEMU_LD_PREFIX=${TD_ARM64_SYSROOT};${TD_QEMU_AARCH64}")
endif()
