#!/usr/bin/env bash
# README's first command: install what is missing, build Release, run the main job
# (hyprove with no arguments compares the devices it finds on an MSM workload).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"
./build/release/hyprove "$@"
