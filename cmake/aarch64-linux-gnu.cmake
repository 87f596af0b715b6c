# Cross-compiling hyprove for 64-bit ARM Linux on a Debian x86-64 host (scripts/test-aarch64.sh):
# Debian's gcc-aarch64-linux-gnu, the arm64 libraries of the test oracles from multiarch
# (check:arm64, libgmp-dev:arm64, libsubunit-dev:arm64) and qemu-user, which ctest puts in
# front of every test program (CMAKE_CROSSCOMPILING_EMULATOR).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# programs from the host; libraries and headers of the target only (multiarch folders)
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
# -L /: the multiarch arm64 C library (libc6:arm64, which the arm64 libraries depend on) with
# its own loader; mixing it with the cross toolchain's loader (/usr/aarch64-linux-gnu) hangs
# in the first malloc after the libraries load.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/)
