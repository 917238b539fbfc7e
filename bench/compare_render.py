"""Whole-process comparison of `prompt-inspector render` with the Python implementation of the
same algorithm (bench/py_inspector.py) on the generated scene, run side by side.

Usage: python3 bench/compare_render.py [--runs N] [--tools 300] [--messages 5000]
(bench/compare_render.sh sets up the venv and builds the release binary first.)

Prints the median wall time of each, their ratio, and each process's peak resident memory next to
the scene file's size; checks that both produce the same chat messages.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time


def run(cmd):
    """Runs cmd, returns (seconds, peak RSS in bytes, stdout)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate()
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        sys.exit(f"{cmd[0]} failed: {err.decode(errors='replace')}")
    return elapsed, out


def peak_rss(cmd):
    """Peak resident memory of cmd alone, in bytes, as GNU time reports it.

    Measuring from this Python process would not do: a child forked from it keeps Python's
    high-water mark across exec, so every figure would include this interpreter."""
    if not os.path.exists("/usr/bin/time"):
        sys.exit("peak memory needs GNU time: apt-get install time")
    out = subprocess.run(
        ["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True
    )
    return int(out.stderr.decode().strip().splitlines()[-1]) * 1024  # KiB


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--bin", default="target/release/prompt-inspector")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--scene", default="target/bench/generated.scene.json")
    args = ap.parse_args()

    size = os.path.getsize(args.scene)
    rust_cmd = [args.bin, "render", args.scene, "--format", "json"]
    py_cmd = [args.python, "bench/py_inspector.py", args.scene]

    rust_t, py_t = [], []
    rust_out = py_out = None
    for _ in range(args.runs):  # interleaved, so both see the same machine state
        t, rust_out = run(rust_cmd)
        rust_t.append(t)
        t, py_out = run(py_cmd)
        py_t.append(t)

    def pairs(out):
        return [(m["role"], m["content"]) for m in json.loads(out)["messages"]]

    same = pairs(rust_out) == pairs(py_out)
    rust_med, py_med = statistics.median(rust_t), statistics.median(py_t)
    rust_rss, py_rss = peak_rss(rust_cmd), peak_rss(py_cmd)
    budget = 3 * size + 50 * 1024 * 1024

    print(f"scene: {args.scene} ({size / 1e6:.2f} MB), {args.runs} interleaved runs each")
    print(f"{'':<22}{'median wall':>14}{'peak RSS':>12}")
    print(f"{'prompt-inspector':<22}{rust_med * 1e3:>11.1f} ms{rust_rss / 1e6:>9.1f} MB")
    print(f"{'python (pydantic+j2)':<22}{py_med * 1e3:>11.1f} ms{py_rss / 1e6:>9.1f} MB")
    print(f"speed-up: {py_med / rust_med:.1f}x (target >= 50x)")
    print(f"memory: {rust_rss / 1e6:.1f} MB of a {budget / 1e6:.1f} MB budget (3 x scene + 50 MB)")
    print(f"chat messages identical: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
