"""`prompt-inspector check --junit` read by the tools CI servers use: validated against Jenkins'
junit-10.xsd (the schema pytest validates its own --junitxml against; scripts/python-tests takes
it from pytest's source distribution on PyPI and names it in JUNIT_XSD) and parsed by
junitparser."""

import os
import pathlib
import subprocess

import junitparser
import pytest
import xmlschema

TEMPLATE = "Trace this answer."


def corpus(repo: pathlib.Path, cli: str, tmp: pathlib.Path) -> pathlib.Path:
    """One scene that matches, one whose template changed, one without a golden, one broken."""
    src = repo / "fixtures/lint/volatile-values.scene.json"
    text = src.read_text(encoding="utf-8")
    assert TEMPLATE in text
    tmp.mkdir(parents=True, exist_ok=True)
    for name in ("a-match", "b-mismatch", "c-missing"):
        (tmp / f"{name}.scene.json").write_text(text, encoding="utf-8")
    subprocess.run([cli, "check", "--bless", str(tmp)], check=True, capture_output=True)
    (tmp / "c-missing.golden.json").unlink()
    changed = text.replace(TEMPLATE, "Trace this reply.")
    (tmp / "b-mismatch.scene.json").write_text(changed, encoding="utf-8")
    (tmp / "d-broken.scene.json").write_text('{\n  "name": ]\n}\n', encoding="utf-8")
    return tmp


def junit_of(cli: str, scenes: pathlib.Path, out: pathlib.Path) -> pathlib.Path:
    done = subprocess.run([cli, "check", "--junit", str(out), str(scenes)], capture_output=True, text=True)
    assert done.returncode == 2, done.stderr
    return out


def schema() -> xmlschema.XMLSchema:
    path = os.environ.get("JUNIT_XSD")
    if not path:
        pytest.skip("JUNIT_XSD is not set (scripts/python-tests sets it)")
    return xmlschema.XMLSchema(path)


def test_junit_validates_against_jenkins_schema(repo: pathlib.Path, cli: str, tmp_path: pathlib.Path) -> None:
    xsd = schema()
    report = junit_of(cli, corpus(repo, cli, tmp_path / "c"), tmp_path / "r.xml")
    errors = list(xsd.iter_errors(str(report)))
    assert errors == []


def test_pytests_own_report_validates_too(tmp_path: pathlib.Path) -> None:
    """The schema check can fail: a report missing a testcase's required name is refused."""
    xsd = schema()
    bad = tmp_path / "bad.xml"
    bad.write_text(
        '<testsuites><testsuite name="x" tests="1" failures="0" errors="0">'
        '<testcase classname="c"/></testsuite></testsuites>',
        encoding="utf-8",
    )
    assert not xsd.is_valid(str(bad))


def test_junitparser_reads_each_scene(repo: pathlib.Path, cli: str, tmp_path: pathlib.Path) -> None:
    report = junit_of(cli, corpus(repo, cli, tmp_path / "c"), tmp_path / "r.xml")
    xml = junitparser.JUnitXml.fromfile(str(report))
    suites = list(xml)
    assert len(suites) == 1
    suite = suites[0]
    assert (suite.tests, suite.failures, suite.errors) == (4, 2, 1)
    cases = {case.name: case for case in suite}
    assert sorted(cases) == [
        "a-match.scene.json",
        "b-mismatch.scene.json",
        "c-missing.scene.json",
        "d-broken.scene.json",
    ]
    assert cases["a-match.scene.json"].is_passed
    (mismatch,) = cases["b-mismatch.scene.json"].result
    assert isinstance(mismatch, junitparser.Failure)
    assert mismatch.type == "mismatch"
    assert mismatch.message == ("the golden differs: first in chat · after_input_msg_prompt (tracer's text)")
    assert "    - Trace this answer.\n    + Trace this reply.\n" in (mismatch.text or "")
    (missing,) = cases["c-missing.scene.json"].result
    assert isinstance(missing, junitparser.Failure)
    assert missing.type == "missing_golden"
    (broken,) = cases["d-broken.scene.json"].result
    assert isinstance(broken, junitparser.Error)
    assert "d-broken.scene.json:2:" in (broken.message or "")


def test_shards_and_junit_together(repo: pathlib.Path, cli: str, tmp_path: pathlib.Path) -> None:
    """Each shard writes its own report; together they hold every fixture scene once."""
    names: list[str] = []
    for i in (1, 2, 3):
        out = tmp_path / f"shard-{i}.xml"
        subprocess.run(
            [cli, "check", "--shard", f"{i}/3", "--junit", str(out), str(repo / "fixtures")],
            check=True,
            capture_output=True,
        )
        for suite in junitparser.JUnitXml.fromfile(str(out)):
            assert suite.name == f"prompt-inspector check (shard {i}/3)"
            names.extend(f"{case.classname}/{case.name}" for case in suite)
    every = sorted(str(p) for p in (repo / "fixtures").rglob("*.scene.json"))
    assert sorted(names) == every
