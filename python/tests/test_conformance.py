"""The package's engines against the real ones, side by side in this process: every case of the
project's conformance data (tests/conformance/*.json) is rendered by CPython's str.format_map or
by Jinja2 and by the package, from the same Python values. No expected value is written here."""

import json
import re

import jinja2
import pytest

import prompt_inspector as pi
from conftest import REPO


def cases(name):
    data = json.loads((REPO / "tests/conformance" / f"{name}.json").read_text(encoding="utf-8"))
    return data["cases"]


def known_differences(section):
    """The ids docs/templates.md lists under `## <section>` (the Rust conformance test reads the
    same list)."""
    text = (REPO / "docs/templates.md").read_text(encoding="utf-8")
    ids, inside = set(), False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = line[3:].strip() == section
        elif inside:
            m = re.match(r"\s*- `([^`]+)`:", line)
            if m:
                ids.add(m.group(1))
    return ids


def outcome(call, *args):
    try:
        return ("output", call(*args))
    except pi.TemplateError as e:
        return ("error", e.kind, e.message)
    except Exception as e:  # noqa: BLE001 - the exception's class is what is compared
        return ("error", type(e).__name__, str(e), [c.__name__ for c in type(e).__mro__])


def jinja2_render(template, variables):
    return jinja2.Environment().from_string(template).render(variables)


def test_format_map_is_cpythons_on_every_case():
    failures = []
    all_cases = cases("fstring")
    for case in all_cases:
        # Each engine gets values of its own: a template may change them.
        real = outcome(str.format_map, case["template"], json.loads(case["vars"]))
        ours = outcome(pi.format_map, case["template"], json.loads(case["vars"]))
        if real[:3] != ours[:3]:
            failures.append(f"{case['id']}: CPython {real!r}, package {ours!r}")
    assert len(all_cases) > 700
    assert failures == []


def test_render_jinja2_is_jinja2s_on_every_case_but_the_known_differences():
    known = known_differences("Known Jinja2 differences")
    failing = {}
    all_cases = cases("jinja2")
    for case in all_cases:
        # Each engine gets values of its own: a template may change them (`append`).
        real_outcome = outcome(jinja2_render, case["template"], json.loads(case["vars"]))
        ours = outcome(pi.render_jinja2, case["template"], json.loads(case["vars"]))
        if real_outcome[0] == "error" and ours[0] == "error" and ours[1] in real_outcome[3]:
            # The class the package names is Jinja2's or one of its bases (FilterArgumentError
            # is a TemplateRuntimeError); messages are Jinja2's own prose, compared by the Rust
            # conformance test where it records them.
            continue
        if real_outcome[:3] != ours[:3]:
            failing[case["id"]] = f"Jinja2 {real_outcome!r}, package {ours!r}"
    assert len(all_cases) > 700
    unlisted = {k: v for k, v in failing.items() if k not in known}
    assert unlisted == {}
    assert sorted(known - set(failing)) == [], "listed in docs/templates.md but passing now"


@pytest.mark.parametrize(
    "mapping",
    [
        {"n": 2**200, "f": 0.1, "b": True, "none": None},
        {"n": -(2**70), "f": 1e300, "b": False, "none": None},
    ],
)
def test_python_values_arrive_exact(mapping):
    template = "{n} {n!r} {f!r} {f:.3e} {b} {b!r} {none!r} {n:,}"
    assert pi.format_map(template, mapping) == template.format_map(mapping)


def test_a_pydantic_model_is_dumped_in_json_mode():
    pydantic = pytest.importorskip("pydantic")

    class Ctx(pydantic.BaseModel):
        goal: str
        tags: list

    ctx = Ctx(goal="写周报", tags=["a", 1])
    assert pi.format_map("{goal} {tags!r}", {"ctx": 1, **ctx.model_dump(mode="json")}) == "写周报 ['a', 1]"
    assert pi.render_jinja2("{{ ctx.goal }} {{ ctx.tags }}", {"ctx": ctx}) == "写周报 ['a', 1]"


def test_values_that_are_not_json_like_are_refused_with_type_error():
    with pytest.raises(TypeError, match="not JSON-like"):
        pi.format_map("{x}", {"x": object()})
    with pytest.raises(TypeError, match="keys must be str"):
        pi.format_map("{x}", {"x": {1: 2}})


def test_deep_nesting_and_huge_integers_end_at_once_with_errors():
    deep = []
    for _ in range(2000):
        deep = [deep]
    with pytest.raises(ValueError, match="nests more than 512 levels"):
        pi.format_map("{x}", {"x": deep})
    # CPython refuses to print an int of more than 4,300 digits; so does the package, as fast.
    big = 10**5000
    with pytest.raises(ValueError) as real:
        "{n}".format_map({"n": big})
    with pytest.raises(ValueError) as ours:
        pi.format_map("{n}", {"n": big})
    assert "4300" in str(real.value) and "4300" in str(ours.value)
