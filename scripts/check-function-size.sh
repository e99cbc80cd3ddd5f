#!/usr/bin/env bash
# Keeps every production function within 150 lines: scripts/function_size.py (clang-tidy's
# readability-function-size, each unit's verdict kept until what it depends on changes).
#
#   scripts/check-function-size.sh [BUILD_DIR [FILE...]]    default: build, every production file
exec python3 "$(dirname "$0")/function_size.py" "$@"
