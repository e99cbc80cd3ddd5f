#!/usr/bin/env bash
# The main job (README): builds Sluice (installing missing Debian packages first), starts the
# control plane with rtrmgr/examples/main-job.conf (dummy FEA), a sluice-replay upstream peer
# feeding the MRT capture given as argument (a synthetic full table when none is given) and a
# downstream sluice-replay peer that counts what it receives; waits for convergence and prints
# the summary. Then it keeps running for `sluice show ...` until Ctrl-C, or exits with --once.
#
#   ./run.sh [--once] [--synthetic N] [--config FILE] [CAPTURE.mrt[.gz|.bz2]]
#
# Exit status with --once: 0 when the RIB, the FIB and the downstream peer hold exactly the
# accepted prefixes.
set -euo pipefail
args=()
for a in "$@"; do
  # Paths given relative to the caller's directory keep working after the cd below.
  if [[ "$a" != -* && -e "$a" ]]; then a="$(realpath "$a")"; fi
  args+=("$a")
done
cd "$(dirname "$0")"
. scripts/deps.sh
sluice_install_deps build
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C build sluice-mainjob sluice-rtrmgr sluice sluice-finder sluice-fea sluice-rib \
  sluice-bgp sluice-replay >&2
# As root, the router manager runs its processes as user sluice when it exists; a checkout that
# user cannot reach (under mktemp -d or /root) runs them as root instead.
if [ "$(id -u)" -eq 0 ] && getent passwd sluice >/dev/null &&
  ! runuser -u sluice -- test -x "$PWD" 2>/dev/null; then
  echo "note: user sluice cannot search $PWD: the control plane's processes run as root" >&2
  args=(--user root "${args[@]}")
fi
exec ./build/rtrmgr/mainjob/sluice-mainjob --config rtrmgr/examples/main-job.conf "${args[@]}"
