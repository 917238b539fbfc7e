#!/usr/bin/env bash
# `check` throughput on a generated corpus (docs/performance.md, "check on a corpus (issue 16)"):
# N scenes (default 10,000) made from the repository's fixture scenes, each renamed so that every
# scene and golden is a file of its own, blessed once, then checked with --jobs 1 and --jobs 2
# side by side (alternating runs, medians). Prints scenes per second for each and the ratio.
#   bash bench/check_corpus.sh [SCENES] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
scenes=${1:-10000}
runs=${2:-3}
target=${CARGO_TARGET_DIR:-target}
cargo build -q --release --features cli --bin prompt-inspector
bin="$target/release/prompt-inspector"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$work" "$scenes" <<'PY'
import json, pathlib, sys
work, count = pathlib.Path(sys.argv[1]), int(sys.argv[2])
# Scenes that stand alone (no image files beside them), varied in size and shape.
sources = sorted(p for p in pathlib.Path("fixtures").rglob("*.scene.json")
                 if "attachments" not in p.read_text(encoding="utf-8")
                 and "\"path\"" not in p.read_text(encoding="utf-8"))
texts = [json.loads(p.read_text(encoding="utf-8")) for p in sources]
for i in range(count):
    scene = dict(texts[i % len(texts)])
    scene["name"] = f"{scene['name']}-{i}"
    folder = work / f"d{i // 500:03}"
    folder.mkdir(exist_ok=True)
    (folder / f"s{i:05}.scene.json").write_text(json.dumps(scene), encoding="utf-8")
print(f"{count} scenes from {len(sources)} fixtures in {work}", file=sys.stderr)
PY
"$bin" check --bless "$work" >/dev/null
python3 - "$bin" "$work" "$scenes" "$runs" <<'PY'
import statistics, subprocess, sys, time
bin, work, scenes, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
times = {1: [], 2: []}
for _ in range(runs):
    for jobs in (1, 2):
        t = time.perf_counter()
        out = subprocess.run([bin, "check", "--jobs", str(jobs), work],
                             stdout=subprocess.PIPE, check=True).stdout
        times[jobs].append(time.perf_counter() - t)
        assert out.endswith(f"{scenes} passed, 0 failed\n".encode()), out[-200:]
for jobs, ts in times.items():
    m = statistics.median(ts)
    print(f"--jobs {jobs}: median {m:.2f} s over {runs} runs, {scenes / m:,.0f} scenes/s")
print(f"two cores / one core: {statistics.median(times[1]) / statistics.median(times[2]):.2f}x")
PY
