"""Whole-process `render --no-tokens` against `render` (tokens counted) (both encodings) for two builds of the CLI,
run interleaved so both see the same machine. bench/tokens.sh builds them and calls this.

Usage: python3 bench/tokens.py --scene S --before BIN --after BIN [--runs N]

Prints, per build and mode, the median wall time, its ratio to the same build's `render`, and
the peak RSS (GNU time) against the budget of 3 x the scene + 50 MB; then whether the two builds
agree on every segment's and message's token count (pieces are left out: what a piece's count
means changed in issue 15).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

# Modes by what they measure; the flags each build takes for them come from `flags`, since builds
# from before tokens were on by default have no `--no-tokens` (and count only when asked).
MODES = ["render --no-tokens", "render (o200k_base)", "render --tokenizer cl100k_base"]


def flags(binary):
    """Each mode's flags for this build of the CLI."""
    help_text = subprocess.run([binary, "render", "--help"], stdout=subprocess.PIPE,
                               check=True, text=True).stdout
    if "--no-tokens" in help_text:
        return dict(zip(MODES, [["--no-tokens"], [], ["--tokenizer", "cl100k_base"]]))
    return dict(zip(MODES, [[], ["--tokens"], ["--tokenizer", "cl100k_base"]]))


def wall(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def peak_rss(cmd):
    """Peak resident memory of cmd alone, in bytes (GNU time; see bench/compare_render.py)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M", *cmd], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, check=True)
    return int(out.stderr.decode().strip().splitlines()[-1]) * 1024


def counts(binary, scene, args):
    out = subprocess.run([binary, "render", scene, "--format", "json", *args],
                         stdout=subprocess.PIPE, check=True).stdout
    report = json.loads(out)
    return ([s.get("tokens") for s in report["segments"]],
            [m.get("tokens") for m in report.get("messages") or []])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scene", required=True)
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--before-label", default="before")
    ap.add_argument("--after-label", default="after")
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    if not os.path.exists("/usr/bin/time"):
        sys.exit("peak memory needs GNU time: apt-get install time")

    builds = [(args.before_label, args.before), (args.after_label, args.after)]
    cmd = {(b, m): [binary, "render", args.scene, "--format", "json", *extra]
           for b, binary in builds for m, extra in flags(binary).items()}
    times = {key: [] for key in cmd}
    for _ in range(args.runs):  # interleaved: every build and mode once per round
        for key, c in cmd.items():
            times[key].append(wall(c))

    size = os.path.getsize(args.scene)
    budget = 3 * size + 50 * 1024 * 1024
    print(f"scene {args.scene}: {size / 1e6:.2f} MB; {args.runs} interleaved runs, medians; "
          f"memory budget {budget / 1e6:.1f} MB (3 x scene + 50 MB)")
    print(f"{'':<34}{'mode':<32}{'median':>10}{'x render':>10}{'peak RSS':>11}")
    for label, _ in builds:
        plain = statistics.median(times[(label, MODES[0])])
        for mode in MODES:
            med = statistics.median(times[(label, mode)])
            rss = peak_rss(cmd[(label, mode)])
            print(f"{label:<34}{mode:<32}{med * 1e3:>7.1f} ms{med / plain:>9.2f}x"
                  f"{rss / 1e6:>8.1f} MB")
    before_flags, after_flags = flags(args.before), flags(args.after)
    for mode in MODES[1:]:
        same = (counts(args.before, args.scene, before_flags[mode])
                == counts(args.after, args.scene, after_flags[mode]))
        print(f"{mode}: segment and message counts {'identical' if same else 'DIFFER'}")
        if not same:
            sys.exit(1)


if __name__ == "__main__":
    main()
