#!/usr/bin/env bash
# Keeps every production function (everything outside tests/ and bench/) within 150 lines, blank
# lines and comments included: clang-tidy's readability-function-size over the compile commands
# of a configured build. Prints each function past the limit; exits 1 when there is one.
#
#   scripts/check-function-size.sh [BUILD_DIR [FILE...]]    default: build, every production file
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(realpath "${1:-build}")"
[ $# -gt 0 ] && shift
only=()
for f in "$@"; do only+=("$(realpath "$f")"); done
limit=150
[ -f "$build/compile_commands.json" ] ||
  { echo "check-function-size: no $build/compile_commands.json (configure the build first)"; exit 2; }

# The production translation units, and the top-level folders they live in (their headers count).
mapfile -t files < <(python3 - "$root" "$build/compile_commands.json" "${only[@]}" <<'PY'
import json, os, sys
root, db, only = sys.argv[1], sys.argv[2], set(sys.argv[3:])
seen = set()
for c in json.load(open(db)):
    f = os.path.realpath(os.path.join(c["directory"], c["file"]))
    rel = os.path.relpath(f, root)
    if rel.startswith(("..", "tests/", "bench/", "build")) or f in seen or (only and f not in only):
        continue
    seen.add(f)
    print(f)
PY
)
if [ ${#files[@]} -eq 0 ]; then
  # run-clang-tidy given no file would check every file of the build.
  echo "check-function-size: no production translation unit among the files given"
  exit 0
fi
dirs="$(printf '%s\n' "${files[@]}" | sed "s|^$root/||; s|/.*||" | sort -u | paste -sd'|')"

out="$(mktemp)"
trap 'rm -f "$out"' EXIT
rc=0
run-clang-tidy -p "$build" -j "$(nproc)" -quiet \
  -checks='-*,readability-function-size' \
  -config="{CheckOptions: [{key: readability-function-size.LineThreshold, value: $limit}]}" \
  -header-filter="^$root/($dirs)/" "${files[@]}" >"$out" 2>&1 || rc=$?
# clang-tidy's note after each warning gives the count: "N lines including whitespace and
# comments (threshold 150)".
found="$(sed -E 's/\x1b\[[0-9;]*m//g' "$out" |
  grep -E "warning: function .* exceeds|lines including whitespace" | paste - - |
  sed -E "s|^$root/||; s/: warning: function '([^']*)'.*note: ([0-9]+) lines.*/ \1: \2 lines/" |
  sort -u || true)"
if [ -n "$found" ]; then
  echo "functions over $limit lines (split them into named steps):"
  echo "$found"
  exit 1
fi
if [ $rc -ne 0 ]; then
  echo "check-function-size: clang-tidy failed:"
  tail -40 "$out"
  exit 1
fi
echo "every production function within $limit lines (${#files[@]} translation units)"
