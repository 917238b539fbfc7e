#!/usr/bin/env bash
# Whole-process cost of token counting (docs/performance.md, "Token counts (issue 15)"): the
# release CLI of a base commit (default: main) against this tree's, `render --no-tokens` and
# `render` counting tokens (both encodings) side by side on the generated scene (300 tools, 5,000 messages).
#   bash bench/tokens.sh [BASE_REF] [RUNS]
# The base is built in a detached worktree under target/bench-base/ (kept, so the next run only
# rebuilds what changed); BEFORE_BIN=path skips that and uses a binary you built. This tree builds
# into $CARGO_TARGET_DIR (default target/), the base into $BASE_TARGET_DIR (default
# target/bench-base/target). Needs /usr/bin/time (apt-get install time) and python3. Prints
# medians, the ratio to `render`, peak RSS against the budget, and whether the counts agree.
set -euo pipefail
cd "$(dirname "$0")/.."
base_ref=${1:-main}
runs=${2:-21}
after_target=${CARGO_TARGET_DIR:-target}
cargo build -q --release --features cli --bin prompt-inspector --example gen_scene
after="$after_target/release/prompt-inspector"
if [ -n "${BEFORE_BIN:-}" ]; then
  before=$BEFORE_BIN
  base_label="before ($BEFORE_BIN)"
else
  base_commit=$(git rev-parse --short "$base_ref")
  tree=target/bench-base/tree
  base_target=${BASE_TARGET_DIR:-target/bench-base/target}
  if [ -d "$tree" ]; then
    git -C "$tree" checkout -q --detach "$base_commit"
  else
    mkdir -p target/bench-base
    git worktree add -q --detach "$tree" "$base_commit"
  fi
  (cd "$tree" && CARGO_TARGET_DIR="$(cd "$OLDPWD" && realpath -m "$base_target")" \
    cargo build -q --release --features cli --bin prompt-inspector)
  before="$(realpath -m "$base_target")/release/prompt-inspector"
  base_label="before ($base_commit)"; [ "$base_ref" = "$base_commit" ] || base_label="before ($base_ref, $base_commit)"
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$after_target/release/examples/gen_scene" 300 5000 >"$work/large.scene.json"
python3 bench/tokens.py --runs "$runs" --scene "$work/large.scene.json" \
  --before "$before" --before-label "$base_label" --after "$after" --after-label "after (this tree)"
