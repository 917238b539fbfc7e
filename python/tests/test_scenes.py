"""Scenes through the package, against the command line built from the same checkout."""

import json
import subprocess

import pytest

import prompt_inspector as pi
from conftest import REPO


def cli_json(cli, *args):
    out = subprocess.run([cli, *args], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.parametrize(
    "scene",
    [
        "fixtures/default.scene.json",
        "fixtures/scenes/tf-notes.scene.json",
        "fixtures/providers/openai-desk.scene.json",
    ],
)
@pytest.mark.parametrize("llm", ["chat", "desk"])
def test_render_is_the_command_lines_report(cli, scene, llm):
    path = str(REPO / scene)
    assert pi.render(path, llm) == cli_json(
        cli, "render", path, "--llm", llm, "--format", "json", "--no-tokens"
    )
    # A scene given as a dict or as a Scene renders the same (images resolve from its file's
    # folder only when it has one).
    assert pi.render(pi.load(path), llm) == pi.render(path, llm)
    if "image" not in pi.load(path).text:
        assert pi.render(pi.load(path).to_dict(), llm) == pi.render(path, llm)


SCENES = sorted(str(p.relative_to(REPO)) for p in (REPO / "fixtures").rglob("*.scene.json"))


@pytest.mark.parametrize("scene", SCENES)
def test_every_fixture_renders_as_the_command_lines_json(cli, scene):
    """The package builds its answers straight from the core's values, the command line prints
    them as JSON: over every fixture (big integers, floats, parts lists, provider bodies,
    tokens on one), both give the same Python values, or both refuse the scene."""
    path = str(REPO / scene)
    tokens = scene == "fixtures/default.scene.json"  # counting is slow in CI's debug builds
    for llm in ["chat", "desk"]:
        args = ["render", path, "--llm", llm, "--format", "json"] + ([] if tokens else ["--no-tokens"])
        cli_run = subprocess.run([cli, *args], capture_output=True, text=True)
        if cli_run.returncode != 0:
            with pytest.raises((pi.SceneError, ValueError)):
                pi.render(path, llm, tokens=tokens)
            continue
        assert pi.render(path, llm, tokens=tokens) == json.loads(cli_run.stdout), llm


def test_numbers_in_messages_cross_as_python_numbers(cli, tmp_path):
    scene = json.loads((REPO / "fixtures/default.scene.json").read_text(encoding="utf-8"))
    part = {"type": "text", "text": "hi", "n": 123456789012345678901234567890, "f": 0.1, "e": 1e300}
    scene["context"]["conversation"] = [{"role": "user", "content": [part]}]
    path = tmp_path / "numbers.scene.json"
    path.write_text(json.dumps(scene), encoding="utf-8")
    report = pi.render(path, "chat")
    [sent] = [m for m in report["messages"] if isinstance(m["content"], list)]
    assert sent["content"] == [part]
    assert type(sent["content"][0]["n"]) is int and type(sent["content"][0]["f"]) is float
    assert report == cli_json(cli, "render", str(path), "--format", "json", "--no-tokens")


def test_run_prints_every_request_whole_as_the_command_line_does(cli):
    for name in ["cd-round-1", "cd-round-2", "final-without-tools", "long-goal", "several-changes"]:
        path = str(REPO / f"fixtures/run/{name}.scene.json")
        assert pi.run(path) == cli_json(cli, "run", path, "--format", "json"), name


def test_rules_are_the_command_lines(cli):
    assert pi.rules() == cli_json(cli, "rules", "--format", "json")["segments"]
    assert len(pi.rules()) == 14


def test_check_reports_each_scene(tmp_path):
    scene = json.loads((REPO / "fixtures/default.scene.json").read_text(encoding="utf-8"))
    folder = tmp_path / "scenes"
    folder.mkdir()
    pi.Scene.from_dict(scene).save(folder / "a.scene.json")
    assert pi.check(folder) == [{"path": str(folder / "a.scene.json"), "status": "missing_golden"}]
    assert [r["status"] for r in pi.check(folder, bless=True)] == ["blessed"]
    assert pi.check(str(folder)) == [{"path": str(folder / "a.scene.json"), "status": "ok"}]
    scene["name"] = "renamed-scene"
    pi.Scene.from_dict(scene).save(folder / "a.scene.json")
    [mismatch] = pi.check(folder)
    assert mismatch["status"] == "mismatch"
    assert '+  "scene": "renamed-scene"' in mismatch["diff"]


def test_a_bad_scene_raises_scene_error_with_its_position(tmp_path):
    bad = tmp_path / "bad.scene.json"
    bad.write_text('{\n  "format": "prompt-inspector/scene@1",\n  "nam": 1\n}\n', encoding="utf-8")
    with pytest.raises(pi.SceneError) as e:
        pi.load(bad)
    assert (e.value.file, e.value.line, e.value.column) == (str(bad), 3, 3)
    assert "nam" in str(e.value)
    with pytest.raises(pi.SceneError) as e:
        pi.load(tmp_path / "missing.scene.json")
    assert e.value.code == "io_error"
    with pytest.raises(pi.SceneError) as e:
        pi.Scene.from_dict({"format": "prompt-inspector/scene@1", "tools": [{"name": 3}]})
    assert e.value.field is not None


def test_a_scene_has_a_useful_repr_and_saves_atomically(tmp_path):
    scene = pi.load(REPO / "fixtures/default.scene.json")
    assert repr(scene).startswith("<Scene 'tf-notes-demo' from ")
    target = tmp_path / "copy.scene.json"
    scene.save(target)
    assert pi.load(target) == scene
    with pytest.raises(pi.SceneError):
        pi.Scene('{"format": "nope"}').save(target)
    assert pi.load(target) == scene


def test_bad_arguments_are_value_errors_naming_them():
    with pytest.raises(ValueError, match="bogus"):
        pi.render(REPO / "fixtures/default.scene.json", "bogus")
    with pytest.raises(pi.SceneError) as e:
        pi.render({"format": "prompt-inspector/scene@9"})
    assert e.value.line == 1 and "scene@9" in str(e.value)
    with pytest.raises(pi.SceneError) as e:
        pi.run(REPO / "fixtures/default.scene.json")
    assert e.value.code == "no_run"
