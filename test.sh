#!/usr/bin/env bash
# Builds Sluice and runs every test: unit, system and interop tests in a normal build, then the
# AddressSanitizer/UBSan build (trie, codec and parser tests, and each libFuzzer target for
# SLUICE_FUZZ_SECONDS, default 60: tests/fuzz/README.md) and the ThreadSanitizer build (shard
# tests). The normal build's step also checks that no production function passes 150 lines
# (scripts/check-function-size.sh).
#
#   ./test.sh                 everything
#   SLUICE_TEST_ONLY=normal ./test.sh     just the normal build and its tests
#
# Tests that need real data read SLUICE_DATA_DIR (the folder holding mrt/) and skip with a
# message when it is unset; tests that need root or a BGP daemon skip likewise.
set -euo pipefail
cd "$(dirname "$0")"
. scripts/deps.sh
sluice_install_deps build peers
# The router manager's children then run as user sluice, as when installed.
sluice_ensure_accounts
if [ "$(id -u)" -eq 0 ] && ! runuser -u sluice -- test -x "$PWD" 2>/dev/null; then
  echo "note: user sluice cannot search $PWD (a directory above it is closed to it): the router" \
    "manager's tests run its processes as root, and the privilege-model test skips"
fi

export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
if [ -n "${SLUICE_DATA_DIR:-}" ] && [ ! -d "$SLUICE_DATA_DIR/mrt" ]; then
  echo "warning: SLUICE_DATA_DIR=$SLUICE_DATA_DIR has no mrt/ folder; data tests will skip"
fi
only="${SLUICE_TEST_ONLY:-all}"
jobs="$(nproc)"
status=0

run_ctest() {  # build-dir label-regex
  ctest --test-dir "$1" --output-on-failure -j "$jobs" -L "$2" || status=1
}

if [ "$only" = all ] || [ "$only" = normal ]; then
  echo "== normal build"
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  ninja -C build
  run_ctest build 'unit|system|interop'
  echo "== function size: production functions within 150 lines (clang-tidy)"
  scripts/check-function-size.sh build || status=1
fi

if [ "$only" = all ] || [ "$only" = asan ]; then
  echo "== AddressSanitizer + UBSan build (clang): asan-labelled tests and fuzzers"
  CC=clang CXX=clang++ cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSLUICE_SANITIZE=address,undefined -DSLUICE_FUZZ=ON \
    -DSLUICE_FUZZ_SECONDS="${SLUICE_FUZZ_SECONDS:-60}" >/dev/null
  targets=$(cat build-asan/sanitize-asan-targets.txt 2>/dev/null || true)
  if [ -n "$targets" ]; then
    ninja -C build-asan $targets
    ASAN_OPTIONS=detect_leaks=1 run_ctest build-asan 'asan|fuzz'
  fi
fi

if [ "$only" = all ] || [ "$only" = tsan ]; then
  echo "== ThreadSanitizer build (clang): tsan-labelled tests"
  CC=clang CXX=clang++ cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DSLUICE_SANITIZE=thread >/dev/null
  targets=$(cat build-tsan/sanitize-tsan-targets.txt 2>/dev/null || true)
  if [ -n "$targets" ]; then
    ninja -C build-tsan $targets
    run_ctest build-tsan 'tsan'
  fi
fi

[ $status -eq 0 ] && echo "== all tests passed" || echo "== some tests FAILED"
exit $status
