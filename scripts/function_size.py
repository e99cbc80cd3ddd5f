#!/usr/bin/env python3
"""Keeps every production function (everything outside tests/ and bench/) within 150 lines, blank
lines and comments included: clang-tidy's readability-function-size over the compile commands of a
configured and built tree. Prints each function past the limit; exits 1 when there is one.

    scripts/function_size.py [BUILD_DIR [FILE...]]    default: build, every production file

Headers count for the units that include them, in every production folder. clang-tidy parses
each translation unit whole, many minutes for the tree. Its verdict for a unit depends only on the
unit's command, the files it includes and clang-tidy's own version and options, so each verdict
is kept under a digest of those (the includes as the build's last ninja run recorded them; the
checkout's path left out, so that a clone elsewhere reuses them) in $SLUICE_TIDY_CACHE (default
~/.cache/sluice/function-size) and reused while none of them changes; one no run has used for
KEEP_DAYS is dropped. Units the build has not compiled yet are always checked, and a cache that
cannot be read or written is only not used.
"""

import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import time

LIMIT = 150
CHECKS = "-*,readability-function-size"
KEEP_DAYS = 30  # a verdict no run used for this long is dropped
ROOT = "<root>"  # the checkout's path, in keys and kept verdicts
CONFIG = ("{CheckOptions: [{key: readability-function-size.LineThreshold, value: %d}]}" % LIMIT)


def production_units(root, db, only):
    """The production translation units of the compile database: (source, command entry)."""
    seen, units = set(), []
    for entry in db:
        f = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
        rel = os.path.relpath(f, root)
        if rel.startswith(("..", "tests/", "bench/", "build")) or f in seen:
            continue
        if only and f not in only:
            continue
        seen.add(f)
        units.append((f, entry))
    return units


def ninja_deps(build, objects):
    """The recorded inputs of `objects` (normalised absolute paths) from `ninja -t deps`: valid
    records only; an object without one is left out."""
    out = subprocess.run(["ninja", "-C", build, "-t", "deps"], capture_output=True, text=True)
    deps, current = {}, None
    for line in out.stdout.splitlines():
        if not line.startswith(" "):
            target, _, status = line.partition(":")
            current = os.path.normpath(os.path.join(build, target)) if target else None
            valid = status.rstrip().endswith("(VALID)")
            current = current if valid and current in objects else None
            if current is not None:
                deps[current] = []
        elif current is not None and line.strip():
            deps[current].append(os.path.normpath(os.path.join(build, line.strip())))
    return deps


def object_of(entry):
    """The object file a compile command writes, absolute; None when it names none."""
    args = entry.get("arguments") or shlex.split(entry["command"])
    for i, a in enumerate(args[:-1]):
        if a == "-o":
            return os.path.normpath(os.path.join(os.path.realpath(entry["directory"]), args[i + 1]))
    return None


class Digests:
    """sha256 of files, each read once."""

    def __init__(self):
        self.memo = {}

    def of(self, path):
        if path not in self.memo:
            try:
                with open(path, "rb") as f:
                    self.memo[path] = hashlib.sha256(f.read()).hexdigest()
            except OSError:
                self.memo[path] = "missing"
        return self.memo[path]


def unit_key(entry, inputs, digests, fixed, root):
    """The digest a unit's verdict is kept under, the same for a clone at another path: None when
    its inputs are unknown."""
    if inputs is None:
        return None
    h = hashlib.sha256()
    h.update(json.dumps([fixed, entry["directory"], entry.get("command"),
                         entry.get("arguments")]).replace(root, ROOT).encode())
    # Sorted as written into the key: the order of absolute paths would depend on the checkout's.
    for written, path in sorted((p.replace(root, ROOT), p) for p in inputs):
        h.update(f"{written}\0{digests.of(path)}\0".encode())
    return h.hexdigest()


def run_tidy(build, source, header_filter):
    """clang-tidy on one unit: (exit status, output)."""
    argv = ["clang-tidy", "-p", build, "--quiet", f"-checks={CHECKS}", f"-config={CONFIG}",
            f"-header-filter={header_filter}", source]
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def verdicts(root, build, units, header_filter, cache_dir):
    """Every unit's clang-tidy output, from the cache or a fresh run. Returns (outputs, failures,
    how many were reused): failures are (source, output) of the runs clang-tidy could not
    finish, which are not kept."""
    objects = [object_of(entry) for _, entry in units]
    deps = ninja_deps(build, {obj for obj in objects if obj})
    digests = Digests()
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
    fixed = [version, CHECKS, CONFIG, header_filter.replace(re.escape(root), ROOT)]
    outputs, todo = [], []
    for (source, entry), obj in zip(units, objects):
        key = unit_key(entry, deps.get(obj) if obj else None, digests, fixed, root)
        path = os.path.join(cache_dir, key) if key else None
        verdict = kept(path) if path else None
        if verdict is not None:
            outputs.append(verdict.replace(ROOT, root))
        else:
            todo.append((source, path))
    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        runs = pool.map(lambda t: (t, run_tidy(build, t[0], header_filter)), todo)
        for (source, path), (rc, out) in runs:
            outputs.append(out)
            if rc != 0:
                failures.append((source, out))
            elif path:
                keep(path, out.replace(root, ROOT))
    prune(cache_dir)
    return outputs, failures, len(units) - len(todo)


def kept(path):
    """The verdict kept at `path`, marked used (kept another KEEP_DAYS); None when there is none."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            verdict = f.read()
        os.utime(path)
        return verdict
    except OSError:
        return None


def keep(path, verdict):
    """Writes a verdict to the cache; a cache that cannot be written is only not used."""
    tmp = f"{path}.{os.getpid()}.tmp"  # runs at once write apart, then replace
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(verdict)
        os.replace(tmp, path)
    except OSError:
        pass


def prune(cache_dir):
    """Drops the verdicts no run has used for KEEP_DAYS."""
    if not os.path.isdir(cache_dir):
        return
    cutoff = time.time() - KEEP_DAYS * 86400
    for e in os.scandir(cache_dir):
        try:
            if e.stat().st_mtime < cutoff:
                os.remove(e.path)
        except OSError:
            pass  # another run took it first


def functions_over(outputs, root):
    """'file:line:col name: N lines' for each function clang-tidy found past the limit."""
    ansi = re.compile(r"\x1b\[[0-9;]*m")
    found = set()
    for out in outputs:
        lines = [ansi.sub("", l) for l in out.splitlines()]
        for i, line in enumerate(lines):
            m = re.match(r"(.*?): warning: function '([^']*)' exceeds", line)
            if not m:
                continue
            n = next((re.search(r"(\d+) lines including whitespace", l) for l in lines[i + 1:]
                      if "lines including whitespace" in l), None)
            where = os.path.relpath(m.group(1), root) if m.group(1).startswith("/") else m.group(1)
            found.add(f"{where} {m.group(2)}: {n.group(1) if n else '?'} lines")
    return sorted(found)


def main():
    root = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    build = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else "build")
    only = {os.path.realpath(f) for f in sys.argv[2:]}
    db_path = os.path.join(build, "compile_commands.json")
    if not os.path.exists(db_path):
        print(f"check-function-size: no {db_path} (configure the build first)")
        return 2
    with open(db_path) as f:
        db = json.load(f)
    units = production_units(root, db, only)
    if not units:
        print("check-function-size: no production translation unit among the files given")
        return 0
    # The headers of every production folder count, whichever units are checked.
    every = production_units(root, db, set())
    dirs = sorted({os.path.relpath(source, root).split("/")[0] for source, _ in every})
    header_filter = f"^{re.escape(root)}/({'|'.join(dirs)})/"
    cache_dir = os.environ.get("SLUICE_TIDY_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "sluice", "function-size")
    outputs, failures, reused = verdicts(root, build, units, header_filter, cache_dir)
    found = functions_over(outputs, root)
    if found:
        print(f"functions over {LIMIT} lines (split them into named steps):")
        print("\n".join(found))
        return 1
    if failures:
        source, out = failures[0]
        print(f"check-function-size: clang-tidy failed on {len(failures)} unit(s), first "
              f"{os.path.relpath(source, root)}:")
        print("\n".join(out.splitlines()[-40:]))
        return 1
    print(f"every production function within {LIMIT} lines ({len(units)} translation units, "
          f"{reused} verdicts reused)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
