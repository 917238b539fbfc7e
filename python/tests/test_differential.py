"""The package against the project's own pure-Python rendering of TFRobot's algorithm
(bench/py_inspector.py: pydantic PromptContext, str.format_map, Jinja2): every fixture scene and
a generated one render the same chat messages."""

import json
import os
import subprocess
import sys

import pytest

import prompt_inspector as pi
from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import py_inspector  # noqa: E402 - from bench/, put on the path just above

SCENES = sorted(str(p.relative_to(REPO)) for p in REPO.glob("fixtures/**/*.scene.json"))


def chat_messages(report):
    return [{"role": m["role"], "content": m["content"]} for m in report["messages"]]


@pytest.mark.parametrize("scene", SCENES)
def test_fixture_scenes_render_as_the_python_implementation(scene):
    data = json.loads((REPO / scene).read_text(encoding="utf-8"))
    assert chat_messages(pi.render(REPO / scene)) == py_inspector.render_chat(data)["messages"]


def test_a_generated_scene_renders_as_the_python_implementation(tmp_path):
    generator = os.environ.get("PI_GEN_SCENE", str(REPO / "target/debug/examples/gen_scene"))
    assert os.access(generator, os.X_OK), f"{generator} is missing: cargo build --examples first"
    text = subprocess.run([generator, "60", "400"], check=True, capture_output=True, text=True).stdout
    data = json.loads(text)
    assert len(data["tools"]) == 60
    assert chat_messages(pi.render(data)) == py_inspector.render_chat(data)["messages"]
