"""The TFNotes tools checked with pytest: the recorded scene against its golden (the same golden
`prompt-inspector check examples/python/` uses), and the file on disk is what recording gives."""

import json
from pathlib import Path

from record_notes import record

HERE = Path(__file__).resolve().parent


def test_the_recorded_prompts_match_the_golden(prompt_golden):
    prompt_golden.check(record(), "notes")


def test_the_scene_on_disk_is_a_fresh_recording():
    on_disk = json.loads((HERE / "notes.scene.json").read_text(encoding="utf-8"))
    assert on_disk == record().to_dict(), "run python examples/python/record_notes.py"


def test_the_chat_side_carries_all_three_tools_and_the_desk_side_two():
    chat, desk = record().render("chat"), record().render("desk")
    assert [t["status"] for t in chat["tools"]] == ["injected", "injected", "injected"]
    assert [t["status"] for t in desk["tools"]] == ["injected", "injected", "silent"]
    system = next(s for s in chat["segments"] if s["name"] == "system_msg_prompt")
    assert "- 代码 {x: 1}" in system["text"]
    assert "# 工作笔记（用户=帮我分析这份季度报告 PDF）" in system["text"]
    # tf_notes records its pydantic argument model: the tool is defined in every request.
    assert chat["tools"][0]["definition"]["bytes"] > 0
    assert record().to_dict()["tools"][0]["parameters"]["required"] == ["action"]
