#!/usr/bin/env bash
# How the shard stage scales with threads on this machine: builds a Release tree, then runs
# bgp_pipeline_bench (heavy import policy) and bench/convergence workloads 1-3 (sluice-bgp alone)
# at `threads N` for N = 1, 2, 4, 8, 16 up to the machine's CPUs, and prints speed-up and
# efficiency tables with the machine's description. N = 1 is the serial pipeline.
#
#   SLUICE_DATA_DIR=../shared/data bench/scaling/run.sh [--build DIR] [--reps R] [--runs R]
#                                                        [--threads 1,2,4] [--out DIR] [--pin CPU]
#
# --build DIR: use an existing build (no Release build), e.g. to try the script quickly.
# --reps R: bgp_pipeline_bench repetitions per N (default 5); --runs R: convergence runs per
# device and workload (default 3). --threads: the N to run (default 1,2,4,8,16 up to nproc).
# --out DIR: where the raw outputs go (default a new folder under /tmp). --pin CPU: every
# bgp_pipeline_bench run on that one CPU (taskset), so that its CPU costs compare like for like
# on a machine whose CPUs run at different speeds (wall times then show nothing). Tables and the
# prediction model are described in bench/scaling/README.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
build="" reps=5 runs=3 threads="" out="" pin=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="$(realpath "$2")"; shift 2 ;;
    --reps) reps="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --pin) pin="$2"; shift 2 ;;
    -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench/scaling/run.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
[ -d "${SLUICE_DATA_DIR:-}/mrt" ] ||
  { echo "bench/scaling/run.sh: set SLUICE_DATA_DIR to the folder holding mrt/" >&2; exit 2; }
cpus="$(nproc)"
if [ -z "$threads" ]; then
  threads="$(for n in 1 2 4 8 16; do if [ "$n" -le "$cpus" ]; then echo "$n"; fi; done |
    paste -sd,)"
fi
IFS=, read -r -a ns <<<"$threads"
out="${out:-$(mktemp -d /tmp/sluice-scaling.XXXXXX)}"
mkdir -p "$out"

if [ -z "$build" ]; then
  . "$root/scripts/deps.sh"
  sluice_install_deps build peers
  build="$root/build-release"
  export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$build" bgp_pipeline_bench core_to_core sluice-bgp sluice-finder sluice \
    sluice-replay >/dev/null
fi

echo "== machine"
echo "$(lscpu | sed -n 's/^Model name: *//p' | head -1), $cpus CPUs," \
  "$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo), Linux $(uname -r)"
echo "threads: ${ns[*]}; raw outputs in $out"
# Every route crosses between the event loop's CPU and a shard's, twice: what a cache line's
# trip costs here is what sharding's extra CPU grows with (README.md, "Handing over").
if [ -x "$build/bench/scaling/core_to_core" ]; then
  "$build/bench/scaling/core_to_core" --trips 100000 | tee "$out/core_to_core.txt"
fi
if [ "$cpus" -lt 4 ]; then
  echo "note: with $cpus CPUs the event loop shares them with every shard, so N > $((cpus - 1))" \
    "cannot run faster here; the tables show the cost of sharding (process CPU against the" \
    "serial pipeline) and the loop thread's share, from which the speed-up on more cores is" \
    "predicted, not measured."
fi

# Each CPU's speed: the serial pipeline once on each. A VM's CPUs can differ widely (a host core
# shared with another guest); then a serial run's time depends on where it lands, and the ratios
# below mix fast and slow CPUs unless --pin keeps every run on one.
echo
echo "== CPU speeds: bgp_pipeline_bench --threads 1 --reps 1 on each CPU (taskset)"
speeds=""
for ((c = 0; c < cpus && c < 16; c++)); do
  t="$(taskset -c "$c" "$build/bench/bgp/bgp_pipeline_bench" --policy heavy --threads 1 --reps 1 \
    2>&1 | sed -n 's/^median: \([0-9.]*\) s wall.*/\1/p')"
  echo "CPU $c: $t s"
  speeds+="$c $t"$'\n'
done
# "fastest slowest ratio" of the CPUs above.
read -r fastest slowest ratio <<<"$(awk 'NF == 2 {
    if (f == "" || $2 < ft) { f = $1; ft = $2 }
    if (s == "" || $2 > st) { s = $1; st = $2 }
  } END { printf "%s %s %.2f", f, s, (ft > 0 ? st / ft : 1) }' <<<"$speeds")"
if awk -v r="$ratio" 'BEGIN { exit !(r > 1.1) }'; then
  echo "note: CPU $slowest is ${ratio}x slower than CPU $fastest.${pin:+ Every run is pinned to CPU $pin.}"
  [ -n "$pin" ] || echo "Compare CPU costs with --pin $fastest (wall times then show nothing)."
fi

pipeline() {  # N: bgp_pipeline_bench's median line, as "wall loop_cpu process_cpu"
  ${pin:+taskset -c "$pin"} "$build/bench/bgp/bgp_pipeline_bench" --policy heavy --threads "$1" \
    --reps "$reps" >"$out/pipeline-t$1.txt" 2>&1
  sed -n 's/^median: \([0-9.]*\) s wall.*, \([0-9.]*\) s loop CPU.*, \([0-9.]*\) s process CPU.*/\1 \2 \3/p' \
    "$out/pipeline-t$1.txt"
}

echo
echo "== bgp_pipeline_bench, PCH table, heavy import policy, median of $reps"
echo "| threads | wall s | speed-up | efficiency | loop CPU s | process CPU s | process CPU / serial |"
echo "|---|---|---|---|---|---|---|"
declare -A wall loop proc
for n in "${ns[@]}"; do
  read -r w l p <<<"$(pipeline "$n")"
  [ -n "${p:-}" ] || { echo "bgp_pipeline_bench --threads $n failed: $out/pipeline-t$n.txt" >&2; exit 1; }
  wall[$n]=$w loop[$n]=$l proc[$n]=$p
  awk -v n="$n" -v w="$w" -v l="$l" -v p="$p" -v w1="${wall[1]:-$w}" -v p1="${proc[1]:-$p}" \
    'BEGIN { s = w1 / w; printf "| %d | %.3f | %.2f | %.0f%% | %.3f | %.3f | %.2f |\n",
             n, w, s, 100 * s / n, l, p, p / p1 }'
done

last="${ns[-1]}"
echo
echo "Predicted from threads $last (bench/scaling/README.md): time on C cores with C shards ="
echo "max(loop CPU, process CPU / C); speed-up = serial process CPU / that."
echo "| cores | predicted speed-up |"
echo "|---|---|"
for c in 5 8 16; do
  awk -v c="$c" -v l="${loop[$last]}" -v p="${proc[$last]}" -v p1="${proc[${ns[0]}]}" \
    'BEGIN { t = p / c; if (l > t) t = l; printf "| %d | %.2f |\n", c, p1 / t }'
done

echo
echo "== bench/convergence workloads 1-3, sluice-bgp alone, median of $runs"
devices="$(for n in "${ns[@]}"; do echo "sluice-t$n"; done | paste -sd,)"
python3 "$root/bench/convergence/convergence.py" --build "$build" --devices "$devices" \
  --workloads 1,2,3 --runs "$runs" --out "$out/convergence" >"$out/convergence.txt" 2>&1 ||
  { echo "convergence.py failed: $out/convergence.txt" >&2; exit 1; }
echo "| workload | threads | time s | speed-up | efficiency | CPU s |"
echo "|---|---|---|---|---|---|"
awk -F'|' '
  /^### Workload/ { wl = $0; sub(/^### Workload /, "", wl); sub(/:.*/, "", wl) }
  /^\| Sluice BGP, threads/ {
    n = $2; sub(/.*threads /, "", n); sub(/[^0-9].*/, "", n)
    t = $3 + 0; c = $4 + 0
    if (n == 1) base[wl] = t
    s = (wl in base && t > 0) ? base[wl] / t : 0
    printf "| %s | %d | %.2f | %s | %s | %.2f |\n", wl, n, t,
      s ? sprintf("%.2f", s) : "-", s ? sprintf("%.0f%%", 100 * s / n) : "-", c
  }' "$out/convergence/results.md"
