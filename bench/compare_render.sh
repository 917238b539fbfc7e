#!/usr/bin/env bash
# Whole-process comparison: prompt-inspector vs a Python implementation of the same algorithm,
# on the generated scene (300 tools, 5,000 messages by default). Sets up its own venv.
# Usage: bash bench/compare_render.sh [TOOLS] [MESSAGES] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bench/.venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
command -v /usr/bin/time >/dev/null || apt-get install -y -q time >/dev/null
"$venv/bin/pip" install --quiet 'jinja2>=3.1,<3.2' 'pydantic>=2,<3'
cargo build --release --quiet --bin prompt-inspector --example gen_scene
mkdir -p target/bench
target/release/examples/gen_scene "${1:-300}" "${2:-5000}" > target/bench/generated.scene.json
"$venv/bin/python" bench/compare_render.py --runs "${3:-7}" --python "$venv/bin/python"
