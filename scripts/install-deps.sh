#!/usr/bin/env bash
# Installs what hyprove needs to build and test on Debian 12, skipping what is present:
# the Debian packages (oclgrind: the simulated OpenCL device of ctest opencl_oclgrind; Open MPI:
# the CLI's runs across processes, ctest mpi), then
# snarkjs 0.7.6 (the Groth16 verifier of the tests) from npm into .deps/snarkjs. With
# --aarch64: what scripts/test-aarch64.sh needs instead.
set -euo pipefail
cd "$(dirname "$0")/.."
packages=(cmake gcc make pkg-config python3 python3-matplotlib clang check libsubunit-dev libgmp-dev libmicrohttpd-dev
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd oclgrind nodejs openmpi-bin libopenmpi-dev)
aarch64=0
if [ "${1:-}" = --aarch64 ]; then # scripts/test-aarch64.sh: the cross compiler, the emulator, arm64 oracles
  aarch64=1
  packages=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user check:arm64 libsubunit-dev:arm64 libgmp-dev:arm64)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ "$aarch64" = 1 ] || command -v npm >/dev/null || dpkg -s npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
else
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
  fi
  if [ "$aarch64" = 1 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    echo "install-deps: adding the arm64 architecture (multiarch) for the arm64 libraries"
    $sudo dpkg --add-architecture arm64
  fi
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
[ "$aarch64" = 1 ] && exit 0
snarkjs=.deps/snarkjs/node_modules/.bin/snarkjs
if [ -x "$snarkjs" ] && [ "$(node -p "require('./.deps/snarkjs/node_modules/snarkjs/package.json').version")" = 0.7.6 ]; then
  echo "install-deps: snarkjs 0.7.6 present"
else
  echo "install-deps: npm install snarkjs@0.7.6 into .deps/snarkjs"
  npm install --silent --no-audit --no-fund --prefix .deps/snarkjs snarkjs@0.7.6
fi
