#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Installs the Debian 12 packages proxyscope needs to build and test, plus any packages given as
# arguments (a benchmark's baseline, say). Idempotent: packages that are already installed are
# skipped, and apt-get runs only when something is missing.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # toolchain
  libcmocka-dev libjson-c-dev                    # tests: cmocka, the exports parsed by json-c
  lttng-tools liblttng-ust-dev liblttng-ctl-dev  # tracepoints, recording, session control
  babeltrace2 libbabeltrace2-dev                 # trace reading
  libfabric-dev libfabric-bin                    # the network seam's real transport
  libpmix-dev openmpi-bin                        # jobs across hosts: PMIx bootstrap, mpirun
  zlib1g-dev                                     # gzip outputs (.gz)
  iproute2 util-linux procps                     # simulated hosts: ip, nsenter, unshare; ps, pgrep
  python3 python3-bt2 python3-jsonschema         # tests: JSON checks, trace checks, the schema
  man-db groff-base mandoc                       # tests: man, the pages' lint
  bash-completion                                # tests: the completion
  dpkg-dev file                                  # the Debian package (cpack -G DEB): shlibdeps
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
