#!/usr/bin/env bash
# Keystroke-to-paint of two builds side by side, interleaved, on one scene: headless Chromium
# against each build's `serve` and UI, then the real app window of each build.
#
#   bash bench/keystroke_ab.sh [--chromium-only] BEFORE_DIR AFTER_DIR [SCENE] [ROUNDS]
#
# --chromium-only skips the real-window half: each DIR then needs only `prompt-inspector` and
# `dist/` (building the app in release twice takes long on a small machine).
# Each DIR holds `prompt-inspector` (release), `prompt-inspector-app` (release, built with
# TAURI_CONFIG="$(cat src-tauri/tauri.e2e.conf.json)") and `dist/` (the UI it embeds). To make one
# for a commit: `git worktree add /tmp/wt COMMIT`, build there with CARGO_TARGET_DIR set to this
# repository's target dir, copy the two binaries and ui/dist out (docs/performance.md).
set -euo pipefail
cd "$(dirname "$0")/.."
window=true
if [ "${1:-}" = --chromium-only ]; then
  window=false
  shift
fi
before=$1 after=$2 scene=${3:-/tmp/big.scene.json} rounds=${4:-3}
if [ ! -f "$scene" ]; then cargo run -q --release --example gen_scene > "$scene"; fi
for i in $(seq "$rounds"); do
  for side in before after; do
    dir=${!side}
    echo "$side $(cd ui && node e2e/keystroke.mjs "$dir/prompt-inspector" "$dir/dist" "$scene")"
  done
done
$window || exit 0
for i in $(seq "$rounds"); do
  for side in before after; do
    dir=${!side}
    echo "$side $(cd src-tauri/e2e && node keystroke.mjs "$dir/prompt-inspector-app" "$scene")"
  done
done
