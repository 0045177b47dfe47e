#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The main job, from a fresh Debian 12 machine: install what is needed, build, and run
# `proxyscope run` with its defaults (extra arguments are passed to it), in the directory it
# was started from: that is where the new proxyscope-run-*/ trace goes.
#
#   scripts/run.sh
#   scripts/run.sh --ranks 8 --inject device-stall:rank=1,exec=3
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

(
  cd "$repo"
  scripts/install-deps.sh
  cmake --preset dev >/dev/null
  cmake --build --preset dev -j "$(nproc)" >/dev/null
)
exec "$repo/build/dev/cli/proxyscope" run "$@"
