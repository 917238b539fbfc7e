"""The pytest plugin, run as a user runs it: a test file with the prompt_golden fixture."""

import json

from conftest import REPO

TEST_FILE = """
import json, pathlib
SCENE = json.loads(pathlib.Path({scene!r}).read_text(encoding="utf-8"))
SCENE["name"] = {goal!r}
SCENE["chat_llm"]["system_msg_prompt"][0]["template"]["templates"]["default"] += {extra!r}

def test_prompts(prompt_golden):
    prompt_golden.check(SCENE, "notes")
"""


def write_test(pytester, goal, extra=""):
    pytester.makepyfile(
        test_notes=TEST_FILE.format(scene=str(REPO / "fixtures/default.scene.json"), goal=goal, extra=extra)
    )


def test_missing_then_blessed_then_passing_then_a_diff(pytester):
    write_test(pytester, "notes-one")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*no golden*notes.golden.json*--prompt-bless*"])

    result = pytester.runpytest("--prompt-bless")
    result.assert_outcomes(passed=1)
    golden = json.loads((pytester.path / "notes.golden.json").read_text(encoding="utf-8"))
    assert set(golden) == {"scene", "chat", "desk"}

    result = pytester.runpytest()
    result.assert_outcomes(passed=1)

    write_test(pytester, "notes-two")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*reports differ from the golden*", '*-  "scene": "notes-one",', '*+  "scene": "notes-two",']
    )


def test_a_changed_segment_fails_with_the_segment_and_its_lines(pytester):
    write_test(pytester, "notes")
    pytester.runpytest("--prompt-bless").assert_outcomes(passed=1)
    write_test(pytester, "notes", extra=" Cite the notes.")
    result = pytester.runpytest()
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*Segments whose text differs (- golden, + now):",
            "*chat · system_msg_prompt",
            "*- You are TFRobot, a careful research assistant.",
            "*+ You are TFRobot, a careful research assistant. Cite the notes.",
        ]
    )
