#!/usr/bin/env bash
# Installs what bench_bananaphone compares against: Open MPI (mpicc, mpirun). Idempotent: runs
# apt-get only when a package is missing. Then reconfigure so the baseline gets built:
#   bench/bananaphone/setup.sh && cmake --preset dev && cmake --build --preset dev
#   build/dev/bench/bananaphone/bench_bananaphone
set -euo pipefail

packages=(openmpi-bin libopenmpi-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "bananaphone bench setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends \
    "${missing[@]}"
fi
