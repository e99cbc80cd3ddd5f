#!/usr/bin/env bash
# The main job. Builds Sluice (installing missing Debian packages) and runs it.
# Until the router manager lands this runs what exists: the address and prefix self-check.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/deps.sh
sluice_install_deps build peers
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build
./build/tests/net/net_address_test
