#!/usr/bin/env python3
"""clang-tidy over every first-party .cc file: tools/lint.sh runs this (read it first).

    tools/lint.py CLANG_TIDY BUILD_DIR [FILE_REGEX]

The files are those git tracks (so nothing generated or vendored), with the flags of BUILD_DIR's
compile_commands.json; a tracked file the build does not compile (the fuzz targets, built by
CAIRN_FUZZ builds only) gets the flags of server/main.cc, which sees every module.

A file that passed is not checked again while nothing it depends on changed: the cache (one
empty file per clean result, named by the hash of everything the result depends on: clang-tidy's
version, .clang-tidy, this script, the file's compile command and the contents of every file it
includes, as the build's ninja dependency log lists them) is kept in $LINT_CACHE_DIR (default
~/.cache/cairn-lint; `off` disables it). Paths are hashed relative to the checkout and the build
directory, so worktrees and fresh checkouts share it as they share ccache's. A file whose object
is missing or older than one of its inputs (the build is not up to date) is always checked.
"""
import concurrent.futures
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time

# g++'s warning flags are not all clang's; Boost 1.74's Asio enables co_await for clang only with
# libc++ (the top-level CMakeLists.txt defines this in the clang builds, not in g++'s).
EXTRA_ARGS = ["--extra-arg=-Wno-unknown-warning-option", "--extra-arg=-DBOOST_ASIO_HAS_CO_AWAIT=1"]
CACHE_DAYS = 30  # cache entries unused for this long are removed
FINDING = re.compile(r"^(\S.*?):(\d+):(\d+): (error|warning): (.*?)(?: \[([^\]]+)\])?$")


def sha(data):
    return hashlib.sha256(data).hexdigest()


def file_sha(path, memo={}):
    if path not in memo:
        try:
            with open(path, "rb") as f:
                memo[path] = sha(f.read())
        except OSError:
            memo[path] = None
    return memo[path]


def arguments(entry):
    return list(entry.get("arguments") or shlex.split(entry["command"]))


def source_files(repo):
    try:
        out = subprocess.run(["git", "ls-files", "*.cc"], cwd=repo, check=True,
                             capture_output=True, text=True).stdout
        return [line for line in out.splitlines() if line]
    except (OSError, subprocess.CalledProcessError):
        found = []
        for top in ("common", "wire", "query", "index", "storage", "server", "tools", "tests"):
            for root, dirs, files in os.walk(os.path.join(repo, top)):
                dirs[:] = [d for d in dirs if d != "node_modules"]
                found += [os.path.relpath(os.path.join(root, f), repo)
                          for f in files if f.endswith(".cc")]
        return sorted(found)


def fallback_entry(reference, path):
    """`reference`'s compile command with its source and object replaced by `path`."""
    ref_src = os.path.normpath(os.path.join(reference["directory"], reference["file"]))
    args, skip = [], False
    for arg in arguments(reference):
        if skip:
            skip = False
        elif arg == "-o":
            skip = True
        elif arg not in (reference["file"], ref_src):
            args.append(arg)
    return {"directory": reference["directory"], "file": path, "arguments": args + [path]}


def ninja_deps(build_dir):
    """{object path relative to the build directory: [its inputs]} from ninja's log."""
    if not os.path.exists(os.path.join(build_dir, "build.ninja")):
        return {}
    try:
        out = subprocess.run(["ninja", "-C", build_dir, "-t", "deps"], check=True,
                             capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    deps, current = {}, None
    for line in out.splitlines():
        if not line.strip():
            current = None
        elif not line[0].isspace():
            target, _, status = line.partition(": #deps")
            current = deps.setdefault(target, []) if "(VALID)" in status else None
        elif current is not None:
            current.append(line.strip())
    return deps


def cache_key(entry, rel, deps, repo, build_dir, common):
    """The hash of everything the result of checking `rel` depends on, or None."""
    args = arguments(entry)
    obj = entry.get("output")
    if obj is None and "-o" in args:
        obj = args[args.index("-o") + 1]
    inputs = deps.get(obj) if obj else None
    if not inputs:
        return None
    obj_path = os.path.join(entry["directory"], obj)
    try:
        obj_mtime = os.stat(obj_path).st_mtime
    except OSError:
        return None

    def norm(path):
        return path.replace(build_dir, "@BUILD@").replace(repo, "@REPO@")

    h = hashlib.sha256()
    h.update(common.encode())
    h.update(("\0" + rel + "\0" + "\0".join(norm(a) for a in args)).encode())
    for dep in sorted(set(inputs)):
        path = os.path.normpath(os.path.join(build_dir, dep))
        digest = file_sha(path)
        try:
            stale = os.stat(path).st_mtime > obj_mtime
        except OSError:
            stale = True
        if digest is None or stale:
            return None
        h.update(("\0" + norm(path) + "\0" + digest).encode())
    return h.hexdigest()


def main():
    tidy, build_dir = sys.argv[1], os.path.abspath(sys.argv[2])
    pattern = sys.argv[3] if len(sys.argv) > 3 else ""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    jobs = int(os.environ.get("LINT_JOBS") or os.cpu_count() or 1)
    db_path = os.path.join(build_dir, "compile_commands.json")
    if not os.path.exists(db_path):
        print("lint: %s missing (configure first: tools/build.sh)" % db_path, file=sys.stderr)
        return 1
    start = time.monotonic()

    files = [f for f in source_files(repo) if re.search(pattern, f)]
    if not files:
        print("lint: no file matches '%s'" % pattern, file=sys.stderr)
        return 1
    entries = {}
    with open(db_path) as f:
        for entry in json.load(f):
            rel = os.path.relpath(os.path.normpath(os.path.join(entry["directory"], entry["file"])),
                                  repo)
            entries.setdefault(rel, entry)
    reference = entries.get("server/main.cc")
    selected = {}
    for rel in files:
        entry = entries.get(rel)
        if entry is None and reference is not None:
            entry = fallback_entry(reference, os.path.join(repo, rel))
        if entry is None:
            print("lint: no compile command for %s (not checked)" % rel, file=sys.stderr)
            continue
        selected[rel] = entry

    cache_dir = os.environ.get("LINT_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "cairn-lint")
    if cache_dir != "off":
        try:
            os.makedirs(cache_dir, exist_ok=True)
        except OSError as e:
            print("lint: no cache (%s)" % e, file=sys.stderr)
            cache_dir = "off"
    keys = {}
    if cache_dir != "off":
        version = subprocess.run([tidy, "--version"], capture_output=True, text=True).stdout
        common = "\0".join([version, " ".join(EXTRA_ARGS)] + [
            file_sha(os.path.join(repo, p)) or "" for p in (".clang-tidy", "tools/lint.py")])
        deps = ninja_deps(build_dir)
        for rel, entry in selected.items():
            keys[rel] = cache_key(entry, rel, deps, repo, build_dir, common)
    unchanged = [rel for rel, key in keys.items()
                 if key and os.path.exists(os.path.join(cache_dir, key))]
    for rel in unchanged:
        os.utime(os.path.join(cache_dir, keys[rel]))
    todo = sorted(set(selected) - set(unchanged))
    print("lint: clang-tidy on %d of %d files (%d unchanged since they passed), %d at a time" %
          (len(todo), len(selected), len(unchanged), jobs), flush=True)

    # A database of the files to check alone, the fallback commands included.
    work = tempfile.mkdtemp(prefix="cairn-lint.")
    with open(os.path.join(work, "compile_commands.json"), "w") as f:
        json.dump([selected[rel] for rel in todo], f, indent=0)

    def check(rel):
        proc = subprocess.run([tidy, "-p", work, "--quiet"] + EXTRA_ARGS +
                              [os.path.join(repo, rel)], capture_output=True, text=True)
        return rel, proc.returncode, proc.stdout + proc.stderr

    findings, failed, logs = set(), [], []
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for rel, code, output in pool.map(check, todo):
            found = [m for m in map(FINDING.match, output.splitlines()) if m]
            findings.update((m.group(1), int(m.group(2)), int(m.group(3)), m.group(5),
                             m.group(6) or "") for m in found)
            if code == 0 and not found:
                if keys.get(rel):
                    open(os.path.join(cache_dir, keys[rel]), "w").close()
                continue
            failed.append(rel)
            logs.append((rel, output))
    os.remove(os.path.join(work, "compile_commands.json"))
    os.rmdir(work)

    if cache_dir != "off" and not pattern:
        cutoff = time.time() - CACHE_DAYS * 86400
        for name in os.listdir(cache_dir):
            path = os.path.join(cache_dir, name)
            if os.path.getmtime(path) < cutoff:
                os.remove(path)

    elapsed = time.monotonic() - start
    if not failed:
        print("lint: ok (%d files, %.0fs)" % (len(selected), elapsed))
        return 0
    # Each finding with its notes and source lines, once (a header's comes from every file that
    # includes it), under the first file that reported it.
    noise = re.compile(r"^(\d+ warnings? (generated|treated as errors?)\.|Suppressed \d+ warnings|"
                       r"Use -header-filter=|Error while processing )")
    shown = set()
    for rel, output in sorted(logs):
        blocks, lines = [], [line for line in output.splitlines() if not noise.match(line)]
        for line in lines:
            if FINDING.match(line) or not blocks:
                blocks.append([line])
            else:
                blocks[-1].append(line)
        blocks = [b for b in blocks if b[0] not in shown]
        if not blocks:
            continue
        print("---- %s" % rel)
        for block in blocks:
            shown.add(block[0])
            print("\n".join(block))
    by_check = {}
    for finding in findings:
        check_name = finding[4].replace(",-warnings-as-errors", "") or "(none)"
        by_check[check_name] = by_check.get(check_name, 0) + 1
    print("lint: %d finding(s) by check:" % len(findings))
    for check_name, n in sorted(by_check.items(), key=lambda kv: (-kv[1], kv[0])):
        print("  %4d %s" % (n, check_name))
    print("lint: FAILED (%d finding(s) in %d of %d files, %.0fs)" %
          (len(findings), len(failed), len(selected), elapsed))
    return 1


if __name__ == "__main__":
    sys.exit(main())
