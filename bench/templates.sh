#!/usr/bin/env bash
# Side-by-side template benchmark: Rust (divan, benches/templates.rs) and CPython (format_map,
# Jinja2 3.1) on the same 10 KB, 200-field template, in one run. Prints medians and ratios.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=bench/.venv
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet 'jinja2>=3.1,<3.2'
fi
rust=$(cargo bench --bench templates 2>/dev/null)
py=$("$venv/bin/python" bench/templates.py)
echo "$rust"
echo
echo "$py"
echo
# divan prints rows like "│  ├─ Fstring  1.2 µs │ ... │ 2.3 µs (median) │ ..."; take the median column.
python3 - "$rust" "$py" <<'PY'
import re, sys
rust, py = sys.argv[1], sys.argv[2]
units = {"ns": 1, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
fig, group = {}, None
for line in rust.splitlines():
    m = re.match(r"^[├╰]─ (\w+)", line)
    if m:
        group = m.group(1)
        continue
    m = re.match(r"^[│ ]\s+[├╰]─ (\w+)\s+(.*)", line)
    if m and group:
        cols = [c.strip() for c in m.group(2).split("│")]
        if len(cols) >= 3:
            v, u = cols[2].split()
            fig[f"{m.group(1).lower()}/{group}"] = float(v) * units[u]
pyfig = dict((k, float(v)) for k, v in (l.split("\t") for l in py.splitlines()))
print(f"{'operation':<16}{'rust (ns)':>12}{'python (ns)':>14}{'python/rust':>13}")
for k in ["fstring/render", "jinja2/parse", "jinja2/render"]:
    r, p = fig.get(k), pyfig.get(k)
    if r and p:
        print(f"{k:<16}{r:>12.0f}{p:>14.0f}{p / r:>12.1f}x")
print(f"{'fstring/parse':<16}{fig.get('fstring/parse', 0):>12.0f}{'(n/a)':>14}")
PY
