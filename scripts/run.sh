#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is needed, build, and run
# `proxyscope run` with its defaults (extra arguments are passed to it).
#
#   scripts/run.sh
#   scripts/run.sh --ranks 8 --inject device-stall:rank=1,exec=3
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset dev >/dev/null
cmake --build --preset dev -j "$(nproc)" >/dev/null
exec build/dev/cli/proxyscope run "$@"
