#!/usr/bin/env bash
# gpu-debs.sh: downloads, here, the Debian packages that scripts/gpu-check.sh unpacks on the lent
# GPU machine, which has CUDA and NVIDIA's driver but may lack the OpenCL headers and the ICD
# loader, and reaches no package registry:
#   opencl-c-headers     CL/cl.h and the rest, to configure and build hyprove
#   ocl-icd-libopencl1   libOpenCL.so.1, the ICD loader that hyprove dlopens; it reads the
#                        vendors folder named by OCL_ICD_VENDORS (needs glibc 2.34 or later)
# Not needed: ocl-icd-opencl-dev (the libOpenCL.so link: hyprove loads OpenCL at run time, so
# only the headers are used to build) and opencl-clhpp-headers (C++).
# The files go to DIR (default gpu-debs, ignored by git): carry that folder to the machine.
# Only downloaded (apt-get download), never installed here. Usage: scripts/gpu-debs.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${1:-gpu-debs}"
PACKAGES=(opencl-c-headers ocl-icd-libopencl1)
command -v apt-get > /dev/null || { echo "gpu-debs.sh: apt-get is needed (a Debian or Ubuntu machine)" >&2; exit 1; }
mkdir -p "$DIR"
rm -f "$DIR"/*.deb
# apt-get download writes into the current folder; as root it warns that the _apt user cannot
# write there, and downloads all the same
if ! (cd "$DIR" && apt-get download "${PACKAGES[@]}"); then
  echo "gpu-debs.sh: apt-get download failed; run 'apt-get update' first if the package lists are missing" >&2
  exit 1
fi
# plain names (package.deb): the version's '~' is no character to trust to a file transfer
for f in "$DIR"/*.deb; do
  pkg="$(basename "$f")"
  echo "$pkg"
  mv "$f" "$DIR/${pkg%%_*}.deb"
done
ls -l "$DIR"/*.deb
total="$(du -cb "$DIR"/*.deb | tail -n 1 | cut -f 1)"
echo "gpu-debs.sh: ${#PACKAGES[@]} packages, $total bytes in $DIR: carry '$DIR' to the lent machine (docs/gpu-check.md)"
