"""The Python package against CPython and Jinja2, and against the Python implementation of the
injection algorithm, side by side in one process (docs/performance.md, "The Python package").

- `format_map`: the package's against CPython's `str.format_map` on the 10 KB, 200-field template
  of bench/templates.py (both parse while they render);
- `render_jinja2`: the package's (which compiles and renders) against Jinja2's `from_string` then
  `render`, and against `render` of a template Jinja2 compiled before;
- `render` of the large generated scene (examples/gen_scene: 300 tools, 5,000 messages) against
  bench/py_inspector.py's `render_chat` on the same scene dict, checking both give the same messages.

Usage: bash bench/python_package.sh (builds the release wheel into a venv, then runs this).
"""

import json
import statistics
import subprocess
import sys
import timeit
from pathlib import Path

import jinja2

import prompt_inspector as pi

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import py_inspector  # noqa: E402
import templates  # noqa: E402


def median_s(fn, number, repeat=7):
    return statistics.median(timeit.repeat(fn, number=number, repeat=repeat)) / number


def row(name, ours, theirs, what):
    print(
        f"{name:<34} package {ours * 1e6:10.1f} µs   {what} {theirs * 1e6:10.1f} µs   {theirs / ours:6.2f}×"
    )


def main():
    fsrc = templates.template(templates.FSTRING_FIELDS)
    jsrc = templates.template(templates.JINJA_FIELDS)
    variables = templates.VARS
    assert pi.format_map(fsrc, variables) == fsrc.format_map(variables)
    assert pi.render_jinja2(jsrc, variables) == jinja2.Environment().from_string(jsrc).render(variables)
    row(
        "format_map, 10 KB template",
        median_s(lambda: pi.format_map(fsrc, variables), 2000),
        median_s(lambda: fsrc.format_map(variables), 2000),
        "CPython",
    )
    row(
        "render_jinja2, 10 KB (parse+render)",
        median_s(lambda: pi.render_jinja2(jsrc, variables), 200),
        median_s(lambda: jinja2.Environment().from_string(jsrc).render(variables), 20),
        "Jinja2 ",
    )
    compiled = jinja2.Environment().from_string(jsrc)
    row(
        "render_jinja2 vs compiled Jinja2",
        median_s(lambda: pi.render_jinja2(jsrc, variables), 200),
        median_s(lambda: compiled.render(variables), 500),
        "Jinja2 ",
    )
    gen = HERE.parent / "target/release/examples/gen_scene"
    text = subprocess.run([str(gen), "300", "5000"], check=True, capture_output=True, text=True).stdout
    data = json.loads(text)
    scene = pi.Scene(text)
    expected = py_inspector.render_chat(data)["messages"]
    got = [{"role": m["role"], "content": m["content"]} for m in scene.render("chat")["messages"]]
    assert got == expected, "the package and the Python implementation disagree"
    python = median_s(lambda: py_inspector.render_chat(data), 1, repeat=5)
    row(
        f"render, generated scene ({len(text) / 2**20:.2f} MiB)",
        median_s(lambda: scene.render("chat"), 5),
        python,
        "Python ",
    )
    row("render from the scene dict", median_s(lambda: pi.render(data, "chat"), 5), python, "Python ")


if __name__ == "__main__":
    main()
