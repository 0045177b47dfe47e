#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs what bench_bananaphone compares against: Open MPI (mpicc, mpirun), idempotently. Then
# reconfigure so the baseline gets built:
#   bench/bananaphone/setup.sh && cmake --preset dev && cmake --build --preset dev
#   build/dev/bench/bananaphone/bench_bananaphone
set -euo pipefail
exec "$(dirname "$0")/../../scripts/install-deps.sh" openmpi-bin libopenmpi-dev
