#!/usr/bin/env bash
# Whole-process comparison of `run` replays at doubling round counts: a BEFORE build against this
# tree's, side by side in one run (docs/performance.md, "Bounded work").
#   bash bench/run_replay.sh BEFORE_BIN [ROUNDS...]
# BEFORE_BIN: a release `prompt-inspector` of an older commit, e.g. made with
#   git worktree add --detach /tmp/old <commit> &&
#   (cd /tmp/old && CARGO_TARGET_DIR=/tmp/old/target cargo build --release --features cli --bin prompt-inspector)
# Needs /usr/bin/time (apt-get install time). Prints seconds, peak RSS and output size per form.
set -euo pipefail
cd "$(dirname "$0")/.."
before=${1:?usage: bench/run_replay.sh BEFORE_BIN [ROUNDS...]}
shift
rounds=("${@:-250 500 1000}")
cargo build -q --release --features cli --bin prompt-inspector --example gen_run
after=target/release/prompt-inspector
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() { # label, then the command; prints label, seconds, peak MB, output MB
  local label=$1
  shift
  /usr/bin/time -f "%e %M" -o "$work/time" "$@" >"$work/out"
  read -r secs kb <"$work/time"
  printf '%-34s %8.2f s %8.1f MB peak %9.1f MB out\n' "$label" "$secs" "$((kb / 1024))" \
    "$(echo "$(stat -c %s "$work/out") / 1048576" | bc -l)"
}
for n in ${rounds[@]}; do
  scene="$work/run$n.scene.json"
  target/release/examples/gen_run "$n" >"$scene"
  echo "── $n rounds ($(stat -c %s "$scene") bytes of scene)"
  measure "before: run --format json" "$before" run "$scene" --format json
  measure "after:  run --format json" "$after" run "$scene" --format json
  cmp -s <("$before" run "$scene" --format json) <("$after" run "$scene" --format json) &&
    echo "  same output, byte for byte" || echo "  OUTPUTS DIFFER"
  measure "after:  run --format json --shared" "$after" run "$scene" --format json --shared
  measure "before: check --bless" "$before" check "$scene" --bless
  measure "after:  check --bless" "$after" check "$scene" --bless
done
