#!/usr/bin/env bash
# The Python package's benchmark (bench/python_package.py): installs the package as people do
# (`pip install ./python`, a release build) into bench/.venv-py with Jinja2 and pydantic, builds
# the scene generator, then runs the comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bench/.venv-py
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/pip" install --quiet -r python/requirements-test.txt
"$venv/bin/pip" install --quiet --force-reinstall --no-deps ./python
cargo build --quiet --release --example gen_scene
"$venv/bin/python" bench/python_package.py
