#!/usr/bin/env python3
"""A Jinja2 conformance corpus from outside this project: Jinja2's own test suite.

    python3 conformance/gen_jinja_upstream.py --extract PATH/TO/pallets/jinja
        # re-extract conformance/cases_jinja2_upstream.py from the upstream tests
    python3 conformance/gen_jinja_upstream.py          # write tests/conformance/jinja2_upstream.json
    python3 conformance/gen_jinja_upstream.py --check  # exit 1 if that file is out of date

Extraction reads the upstream test files with `ast` (nothing of them is imported or run) and keeps
the template strings and render variables of tests that use a default `Environment()` (the `env`
fixture, `Environment()` without arguments, or `Template(...)`), with string-literal templates
(directly or through `@pytest.mark.parametrize`) and variables that are JSON values. Tests that
touch loaders, the sandbox, async, custom filters/tests/globals, non-default environment options,
randomness or Markup are skipped. Each case keeps its upstream test name.

Generation runs every case through the installed Jinja2 (`Environment().from_string(t).render(**v)`)
and records `{"output": ...}` or `{"error": <exact class>, "message": ..., "line": ...}` (line for
errors raised while compiling: `TemplateSyntaxError` and its subclass `TemplateAssertionError`).
Unlike `generate.py`, the exact class is recorded: the engine must raise `TemplateAssertionError`
where Jinja2 does. Cases whose output is not deterministic (memory addresses) are dropped.
"""

import ast
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CASES_FILE = os.path.join(HERE, "cases_jinja2_upstream.py")
OUT = os.path.join(ROOT, "tests", "conformance", "jinja2_upstream.json")

SOURCES = [
    "tests/test_filters.py",
    "tests/test_tests.py",
    "tests/test_core_tags.py",
    "tests/test_lexnparse.py",
    "tests/test_regression.py",
    "tests/test_api.py",
    "tests/test_ext.py",
]

# A test whose source mentions any of these does not run on a default environment (or needs
# Python objects, loaders, async or randomness): skipped whole.
SKIP_MARKERS = [
    "env.filters", "env.tests", "env.globals", "env.policies", ".filters[", ".tests[",
    "globals", "loader", "Loader", "async", "await", "Markup", "random", "lipsum", "sandbox",
    "Sandboxed", "extensions", "finalize", "undefined=", "Undefined", "env.autoescape",
    "trim_blocks", "lstrip_blocks", "newline", "keep_trailing", "_string=", "_start", "_end",
    "line_statement", "line_comment", "optimized", "enable_async", "pass_context", "pass_environment",
    "pass_eval_context", "contextfunction", "overlay", "env.compile", "make_module", "module",
    "get_template", "select_template", "DictLoader", "monkeypatch", "tmp_path", "class ",
    "lambda", "def ", "namedtuple", "datetime", "Decimal",
]


class Skip(Exception):
    pass


def literal(node, bindings):
    """A JSON-able literal value of `node`, with parametrize names bound; Skip otherwise."""
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, (bool, int, float, str)):
            return node.value
        raise Skip
    if isinstance(node, ast.Name):
        if node.id in bindings:
            return bindings[node.id]
        raise Skip
    if isinstance(node, (ast.List, ast.Tuple)):
        # a tuple reaches both engines as a JSON list (the recorded output is Jinja2's for the list)
        return [literal(e, bindings) for e in node.elts]
    if isinstance(node, ast.Dict):
        out = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise Skip
            key = literal(k, bindings)
            if not isinstance(key, str):
                raise Skip
            out[key] = literal(v, bindings)
        return out
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        v = literal(node.operand, bindings)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return -v
        raise Skip
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        a, b = literal(node.left, bindings), literal(node.right, bindings)
        if isinstance(a, str) and isinstance(b, str):
            return a + b
        raise Skip
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dict":
        if node.args:
            raise Skip
        return {kw.arg: literal(kw.value, bindings) for kw in node.keywords if kw.arg} if all(
            kw.arg for kw in node.keywords) else (_ for _ in ()).throw(Skip())
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "list":
        if len(node.args) == 1 and not node.keywords:
            return list(literal(node.args[0], bindings))
        raise Skip
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
        args = [literal(a, bindings) for a in node.args]
        if all(isinstance(a, int) and not isinstance(a, bool) for a in args) and 1 <= len(args) <= 3:
            # a range is not JSON: it reaches both engines as the list of its items
            r = list(range(*args))
            if len(r) <= 1000 and not node.keywords:
                return r
        raise Skip
    raise Skip


def parametrize_sets(func):
    """The bindings of every parametrize combination of `func` ([{}] without parametrize)."""
    sets = [{}]
    for dec in func.decorator_list:
        if not (isinstance(dec, ast.Call) and ast.unparse(dec.func).endswith("parametrize")):
            continue
        if len(dec.args) < 2:
            raise Skip
        names_node = dec.args[0]
        if isinstance(names_node, ast.Constant) and isinstance(names_node.value, str):
            names = [n.strip() for n in names_node.value.split(",") if n.strip()]
        elif isinstance(names_node, (ast.Tuple, ast.List)):
            names = [literal(e, {}) for e in names_node.elts]
        else:
            raise Skip
        if not isinstance(dec.args[1], (ast.List, ast.Tuple)):
            raise Skip
        rows = []
        for elt in dec.args[1].elts:
            if isinstance(elt, ast.Call) and ast.unparse(elt.func).endswith("param"):
                elt = elt.args[0] if len(elt.args) == 1 else ast.Tuple(elts=elt.args)
            values = elt.elts if len(names) > 1 and isinstance(elt, (ast.Tuple, ast.List)) else [elt]
            if len(values) != len(names):
                raise Skip
            row = {}
            for n, v in zip(names, values):
                try:
                    row[n] = literal(v, {})
                except Skip:
                    row[n] = Skip  # unusable value: a case that reads it is skipped
            rows.append(row)
        sets = [dict(s, **r) for s in sets for r in rows]
    return sets


def is_default_keyword(kw):
    """`autoescape=False` is the default: `Environment(autoescape=False)` is `Environment()`."""
    return kw.arg == "autoescape" and isinstance(kw.value, ast.Constant) and kw.value.value is False


def is_template_source(call, env_names):
    """`env.from_string(X)` or `Template(X)` (no other arguments): X's node, else None."""
    f = call.func
    if isinstance(f, ast.Attribute) and f.attr == "from_string" and isinstance(f.value, ast.Name):
        if f.value.id in env_names and len(call.args) == 1 and not call.keywords:
            return call.args[0]
    if isinstance(f, ast.Name) and f.id == "Template" and len(call.args) == 1 and not call.keywords:
        return call.args[0]
    return None


def render_vars(call, bindings):
    """Variables of a `.render(...)` call as a dict; Skip if not JSON literals."""
    out = {}
    if len(call.args) > 1:
        raise Skip
    if call.args:
        d = literal(call.args[0], bindings)
        if not isinstance(d, dict):
            raise Skip
        out.update(d)
    for kw in call.keywords:
        if kw.arg is None:
            d = literal(kw.value, bindings)
            if not isinstance(d, dict):
                raise Skip
            out.update(d)
        else:
            out[kw.arg] = literal(kw.value, bindings)
    return out


def bound(value):
    if value is Skip:
        raise Skip
    if isinstance(value, list):
        return [bound(v) for v in value]
    if isinstance(value, dict):
        return {k: bound(v) for k, v in value.items()}
    return value


def cases_of_function(func, src_text):
    text = ast.get_source_segment(src_text, func) or ""
    body_text = text.split(":", 1)[1] if ":" in text else text
    if any(m in body_text for m in SKIP_MARKERS):
        return []
    params = [a.arg for a in func.args.args if a.arg != "self"]
    env_names = set()
    if "env" in params:
        env_names.add("env")
    try:
        psets = parametrize_sets(func)
    except Skip:
        return []
    allowed = {"env"} | {k for s in psets for k in s}
    if any(p not in allowed for p in params):
        return []
    # `env = Environment()` (no arguments) is the default environment too; any other
    # assignment to a name later used with from_string makes the function unusable.
    for node in ast.walk(func):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Environment":
            if node.args or not all(is_default_keyword(kw) for kw in node.keywords):
                return []
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Name) and isinstance(node.value, ast.Call):
                    if isinstance(node.value.func, ast.Name) and node.value.func.id == "Environment":
                        env_names.add(t.id)
    found = []
    for bindings in psets:
        bindings = dict(bindings)
        for stmt in func.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
                try:
                    bindings[stmt.targets[0].id] = literal(stmt.value, bindings)
                except Skip:
                    pass
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Call)
                and ast.unparse(node.func).endswith("raises")
                and len(node.args) >= 3
                and isinstance(node.args[1], ast.Attribute)
                and node.args[1].attr == "from_string"
                and isinstance(node.args[1].value, ast.Name)
                and node.args[1].value.id in env_names
            ):
                try:
                    template = bound(literal(node.args[2], bindings))
                except Skip:
                    continue
                if isinstance(template, str):
                    found.append((template, {}))
        tmpl_vars = {}  # name -> template node (tmpl = env.from_string(...))
        for node in ast.walk(func):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                if isinstance(node.value, ast.Call):
                    src = is_template_source(node.value, env_names)
                    if src is not None:
                        tmpl_vars.setdefault(node.targets[0].id, []).append(src)
        seen_sources = set()
        seen_ok = []
        for node in ast.walk(func):
            if not isinstance(node, ast.Call):
                continue
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr == "render":
                srcs = []
                if isinstance(f.value, ast.Call):
                    s = is_template_source(f.value, env_names)
                    if s is not None:
                        srcs = [s]
                elif isinstance(f.value, ast.Name) and f.value.id in tmpl_vars:
                    srcs = tmpl_vars[f.value.id]
                if len(srcs) != 1:
                    continue
                seen_sources.add(id(srcs[0]))
                try:
                    template = bound(literal(srcs[0], bindings))
                    variables = bound(render_vars(node, bindings))
                except Skip:
                    continue
                if isinstance(template, str):
                    found.append((template, variables))
                    seen_ok.append(srcs[0])
        # a template compiled but never rendered with usable variables (a syntax-error test,
        # `pytest.raises(TypeError, tmpl.render)`): recorded as rendered without variables
        produced = {id(n) for n in seen_ok}
        for node in ast.walk(func):
            if isinstance(node, ast.Call):
                s = is_template_source(node, env_names)
                if s is not None and id(s) not in produced:
                    try:
                        template = bound(literal(s, bindings))
                    except Skip:
                        continue
                    if isinstance(template, str):
                        found.append((template, {}))
    return found


def extract(repo):
    cases = []
    seen = set()
    for rel in SOURCES:
        path = os.path.join(repo, rel)
        with open(path, encoding="utf-8") as f:
            src_text = f.read()
        tree = ast.parse(src_text)
        stem = os.path.basename(rel)[:-3]
        funcs = []
        for node in tree.body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
                funcs.append((node.name, node))
            elif isinstance(node, ast.ClassDef):
                for sub in node.body:
                    if isinstance(sub, ast.FunctionDef) and sub.name.startswith("test"):
                        funcs.append((f"{node.name}.{sub.name}", sub))
        for name, func in funcs:
            n = 0
            for template, variables in cases_of_function(func, src_text):
                key = (template, json.dumps(variables, sort_keys=True))
                if key in seen:
                    continue
                seen.add(key)
                n += 1
                test = f"{rel}::{name}"
                case_id = f"{stem[5:]}.{name.split('.')[-1][5:] or name}-{n}"
                cases.append((case_id, test, template, json.dumps(variables, ensure_ascii=False)))
    return cases


def write_cases(cases):
    lines = [
        '"""Jinja2 conformance cases taken from Jinja2\'s own test suite (pallets/jinja, tests/).',
        "",
        "Extracted by `conformance/gen_jinja_upstream.py --extract`: each case is",
        "`(id, upstream test, template, vars_json)`. The templates and variables are test data of the",
        "upstream suite; the expected behaviour is recorded from the installed Jinja2, not copied.",
        '"""',
        "",
        "CASES = [",
    ]
    for c in cases:
        lines.append("    (" + ", ".join(repr(x) for x in c) + "),")
    lines.append("]")
    with open(CASES_FILE, "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines) + "\n")


def run(template, variables):
    import jinja2

    env = jinja2.Environment()
    try:
        compiled = env.from_string(template)
    except jinja2.TemplateSyntaxError as exc:
        return {"error": type(exc).__name__, "message": str(exc), "line": exc.lineno}
    try:
        return {"output": compiled.render(**variables)}
    except Exception as exc:  # noqa: BLE001 - every exception is data here
        return {"error": type(exc).__name__, "message": str(exc)}


def build():
    import jinja2

    sys.dont_write_bytecode = True
    sys.path.insert(0, HERE)
    import cases_jinja2_upstream

    out = {
        "generator": "conformance/gen_jinja_upstream.py",
        "source": "pallets/jinja tests/",
        "python": ".".join(map(str, sys.version_info[:3])),
        "jinja2": jinja2.__version__,
        "engine": "jinja2",
        "cases": [],
    }
    for case_id, test, template, vars_json in cases_jinja2_upstream.CASES:
        variables = json.loads(vars_json)
        first, second = run(template, variables), run(template, variables)
        text = json.dumps(first)
        if first != second or " at 0x" in text or "object at" in text:
            continue  # not deterministic
        out["cases"].append(
            {"id": case_id, "upstream": test, "template": template, "vars": vars_json, "expected": first}
        )
    return json.dumps(out, ensure_ascii=False, indent=2) + "\n"


def main():
    args = sys.argv[1:]
    if args[:1] == ["--extract"]:
        cases = extract(args[1])
        write_cases(cases)
        print(f"{len(cases)} cases -> {os.path.relpath(CASES_FILE, ROOT)}")
        return
    text = build()
    old = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else None
    if "--check" in args:
        sys.exit(0 if old == text else 1)
    if old != text:
        with open(OUT, "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    n = len(json.loads(text)["cases"])
    print(f"jinja2 upstream: {n} cases -> {os.path.relpath(OUT, ROOT)}")


if __name__ == "__main__":
    main()
