#!/usr/bin/env bash
# Installs the Debian 12 packages proxyscope needs to build and test, plus any packages given as
# arguments (a benchmark's baseline, say). Idempotent: packages that are already installed are
# skipped, and apt-get runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # toolchain
  libcmocka-dev                                  # tests
  lttng-tools liblttng-ust-dev liblttng-ctl-dev  # tracepoints, recording
  babeltrace2 libbabeltrace2-dev                 # trace reading
  libfabric-dev libfabric-bin                    # the network seam's real transport
  libpmix-dev openmpi-bin                        # jobs across hosts: PMIx bootstrap, mpirun
  iproute2 util-linux                            # simulated hosts: ip, nsenter
  "$@"                                           # extra packages from the caller
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "install-deps: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
