#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The whole test suite, from a fresh Debian 12 machine: install what is needed, build with
# warnings as errors, run ctest (every label but bench), then the driver's tests again under the
# asan (address + undefined) and tsan presets.
#
#   scripts/test.sh            everything
#   scripts/test.sh --quick    the dev build's ctest only
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
[ "${1:-}" = "--quick" ] && quick=1
jobs=$(nproc)

scripts/install-deps.sh

# The driver's tests: everything labelled with a lib/ component.
driver_labels='proxy|net|device|workload|bananaphone'

run_preset() {
  local preset=$1; shift
  echo "== $preset: configure and build"
  cmake --preset "$preset" -DPROXYSCOPE_WERROR=ON >/dev/null
  cmake --build --preset "$preset" -j "$jobs"
  echo "== $preset: ctest $*"
  ctest --preset "$preset" -j "$jobs" "$@"
}

run_preset dev
((quick)) && exit 0

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
run_preset asan -L "$driver_labels"

# ThreadSanitizer cannot map its shadow memory with the kernel's largest mmap randomisation;
# run it without address-space randomisation (setarch -R) when that is the case.
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
run_preset tsan -L "$driver_labels"
