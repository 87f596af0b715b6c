#!/usr/bin/env bash
# Installs what hyprove needs to build and test on Debian 12, skipping what is present.
set -euo pipefail
packages=(cmake gcc make pkg-config python3 clang check libsubunit-dev libgmp-dev
          ocl-icd-opencl-dev opencl-c-headers pocl-opencl-icd)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
