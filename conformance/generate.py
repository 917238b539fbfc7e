#!/usr/bin/env python3
"""Conformance data generator: runs every case through the real Python engines.

Run from anywhere (the repository root is found from this file's location):

    python3 conformance/generate.py            # (re)write tests/conformance/{fstring,jinja2}.json
    python3 conformance/generate.py --check    # exit 1 if the committed files are out of date

The first run creates `conformance/.venv` (git-ignored) and installs `jinja2>=3.1,<3.2` from PyPI
into it, then re-runs itself with that interpreter. Use CPython 3.11 (the data records the version;
`str.format` details such as the `z` option and error messages differ between versions).

Cases live in `conformance/cases_fstring.py` and `conformance/cases_jinja2.py` as
`(id, template, vars_json)` triples; `vars_json` is JSON *text*, parsed here with `json.loads` and
by the Rust side with `Value::from_json_str`, so number literals reach both sides exactly.

What "the real thing" is:
  * fstring: `template.format_map(json.loads(vars_json))`
  * jinja2:  `jinja2.Environment().from_string(template).render(**json.loads(vars_json))`

Each case records `{"output": ...}` or `{"error": <exception class>, "message": str(exc)}`; Jinja2
syntax errors (raised by `from_string`) also record `"line"`. Jinja2 exception subclasses that have
no `ErrorKind` of their own are recorded under their base class (`FilterArgumentError` ->
`TemplateRuntimeError`), with the exact class in
`"class"`. The output is deterministic: running the script twice gives identical files.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VENV = os.path.join(HERE, ".venv")
VENV_PY = os.path.join(VENV, "bin", "python")
OUT_DIR = os.path.join(ROOT, "tests", "conformance")
JINJA_REQ = "jinja2>=3.1,<3.2"

# Exception names the Rust `ErrorKind::python_name()` can produce.
KNOWN_ERRORS = {
    "KeyError",
    "IndexError",
    "ValueError",
    "AttributeError",
    "TypeError",
    "OverflowError",
    "ZeroDivisionError",
    "TemplateSyntaxError",
    "TemplateAssertionError",
    "UndefinedError",
    "TemplateRuntimeError",
}


def in_venv():
    return os.path.realpath(sys.prefix) == os.path.realpath(VENV)


def ensure_venv_and_reexec():
    if not os.path.exists(VENV_PY):
        print(f"creating {VENV}", file=sys.stderr)
        subprocess.check_call([sys.executable, "-m", "venv", VENV])
    probe = subprocess.run(
        [VENV_PY, "-c", "import jinja2, sys; v = jinja2.__version__; sys.exit(0 if v.startswith('3.1.') else 1)"],
        capture_output=True,
    )
    if probe.returncode != 0:
        print(f"installing {JINJA_REQ} into {VENV}", file=sys.stderr)
        subprocess.check_call([VENV_PY, "-m", "pip", "install", "--quiet", JINJA_REQ])
    os.execv(VENV_PY, [VENV_PY, os.path.abspath(__file__), *sys.argv[1:]])


def load_cases(module_name):
    sys.dont_write_bytecode = True  # keep conformance/ free of __pycache__
    sys.path.insert(0, HERE)
    try:
        module = __import__(module_name)
    finally:
        sys.path.pop(0)
    cases = module.CASES
    seen = set()
    for case in cases:
        if len(case) != 3:
            raise SystemExit(f"{module_name}: case must be (id, template, vars_json): {case!r}")
        case_id, template, vars_json = case
        if not isinstance(case_id, str) or not case_id or case_id in seen:
            raise SystemExit(f"{module_name}: missing or duplicate id {case_id!r}")
        seen.add(case_id)
        if not isinstance(template, str) or not isinstance(vars_json, str):
            raise SystemExit(f"{module_name}: {case_id}: template and vars_json must be str")
        if not isinstance(json.loads(vars_json), dict):
            raise SystemExit(f"{module_name}: {case_id}: vars_json must be a JSON object")
    return cases


def error_record(exc, base_names):
    name = type(exc).__name__
    record = {}
    if name not in KNOWN_ERRORS:
        for base in type(exc).__mro__:
            if base.__name__ in base_names:
                record["class"] = name
                name = base.__name__
                break
    if name not in KNOWN_ERRORS:
        raise SystemExit(f"unexpected exception class {name}: {exc!r}")
    record = {"error": name, "message": str(exc), **record}
    return record


def run_fstring(template, vars_json):
    values = json.loads(vars_json)
    try:
        return {"output": template.format_map(values)}
    except Exception as exc:  # noqa: BLE001 - every exception is data here
        return error_record(exc, set())


def run_jinja2(template, vars_json):
    import jinja2

    values = json.loads(vars_json)
    env = jinja2.Environment()
    try:
        compiled = env.from_string(template)
    except jinja2.TemplateSyntaxError as exc:
        record = error_record(exc, {"TemplateSyntaxError"})
        record["line"] = exc.lineno
        return record
    try:
        return {"output": compiled.render(**values)}
    except Exception as exc:  # noqa: BLE001
        return error_record(exc, {"TemplateRuntimeError", "TemplateSyntaxError", "UndefinedError"})


def build(engine, cases, runner):
    import jinja2

    out = {
        "generator": "conformance/generate.py",
        "python": ".".join(map(str, sys.version_info[:3])),
        "jinja2": jinja2.__version__,
        "engine": engine,
        "cases": [],
    }
    for case_id, template, vars_json in cases:
        out["cases"].append(
            {"id": case_id, "template": template, "vars": vars_json, "expected": runner(template, vars_json)}
        )
    return json.dumps(out, ensure_ascii=False, indent=2) + "\n"


def main():
    if not in_venv():
        ensure_venv_and_reexec()
    check = "--check" in sys.argv[1:]
    if sys.version_info[:2] != (3, 11):
        print(f"warning: expected CPython 3.11, running {sys.version.split()[0]}", file=sys.stderr)
    os.makedirs(OUT_DIR, exist_ok=True)
    stale = []
    for engine, module, runner in (
        ("fstring", "cases_fstring", run_fstring),
        ("jinja2", "cases_jinja2", run_jinja2),
    ):
        cases = load_cases(module)
        text = build(engine, cases, runner)
        path = os.path.join(OUT_DIR, f"{engine}.json")
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        errors = sum(1 for c in json.loads(text)["cases"] if "error" in c["expected"])
        if check:
            if old != text:
                stale.append(path)
            continue
        if old != text:
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
        print(f"{engine}: {len(cases)} cases ({errors} errors) -> {os.path.relpath(path, ROOT)}")
    if stale:
        print("out of date: " + ", ".join(os.path.relpath(p, ROOT) for p in stale), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
