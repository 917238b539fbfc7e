"""record(...): scenes from live tools and contexts, re-rendered as the live objects render."""

import json
import subprocess
import sys

import pytest

import prompt_inspector as pi
from conftest import REPO

# The worked example's tools (examples/python/tf_notes.py): TFNotes with a string and literal
# braces, TFNotes with English and Chinese templates, a chat-only memo.
sys.path.insert(0, str(REPO / "examples/python"))
from tf_notes import CHAT_LLM as CHAT  # noqa: E402
from tf_notes import CONTEXT as CTX  # noqa: E402
from tf_notes import TOOLS  # noqa: E402


def live_segment(name, ctx, configured, tools, side=0):
    """What TFRobot's ChatLLM would put in a segment: the configured prompts, then the tools'."""
    prompts = list(configured.get(name, []))
    for tool in tools:
        if tool.prompt_position and tool.prompt_position[side] == name:
            prompt = tool.format_2_prompt(ctx)
            if prompt is not None:
                prompts.append(prompt)
    texts = [p.format_2_str(ctx) for p in prompts]
    return "\n".join(t for t in texts if t)


def test_a_recorded_scene_renders_as_the_live_objects_do():
    scene = pi.record(CTX, tools=TOOLS, chat_llm=CHAT, desk_llm={"adapter": "claude_desk"}, name="notes")
    report = scene.render("chat")
    segments = {s["name"]: s["text"] for s in report["segments"]}
    for name in ["system_msg_prompt", "after_input_msg_prompt"]:
        assert segments[name] == live_segment(name, CTX, CHAT, TOOLS), name
    assert "代码 {x: 1}" in segments["system_msg_prompt"]
    assert "# 工作笔记（用户=帮我分析这份季度报告 PDF）" in segments["system_msg_prompt"]
    statuses = {t["name"]: t["status"] for t in report["tools"]}
    assert statuses == {"tf_notes": "injected", "tf_notes_i18n": "injected", "chat_memo": "injected"}
    desk = {t["name"]: t["status"] for t in scene.render("desk")["tools"]}
    assert desk["chat_memo"] == "silent"


def test_what_each_tool_returned_is_recorded_as_returns():
    scene = pi.record(CTX, tools=TOOLS).to_dict()
    notes, i18n, memo = scene["tools"]
    assert notes["format_2_prompt"] == {
        "returns": "str",
        "source": {
            "engine": "fstring",
            "templates": {
                "default": "# 工作笔记（截至当前轮）\n\n"
                "- 待办：先抽取目录\n- 用户更关心方法论而非数字\n- 代码 {{x: 1}}"
            },
        },
    }
    assert i18n["format_2_prompt"]["returns"] == "prompt"
    assert i18n["format_2_prompt"]["prompt"]["template"]["active_language"] == "zh"
    assert memo["prompt_position"] == ["after_input_msg_prompt", None]
    assert scene["context"] == CTX.model_dump(mode="json")


def test_duck_typed_tfrobot_objects_record_without_tfrobot():
    # Stand-ins with TFRobot's own class names and attributes, none from this package.
    class FStrPromptTemplate:  # noqa: N801 - TFRobot's name
        def __init__(self, templates, active_language="default"):
            self.templates, self.active_language = templates, active_language

    class Jinja2PromptTemplate(FStrPromptTemplate):
        pass

    class AdditionalInfoPrompt:
        def __init__(self, template):
            self.template = template

    class ChatLLM:
        system_msg_prompt = [AdditionalInfoPrompt(Jinja2PromptTemplate({"default": "lang={{ lang }}"}))]
        before_input_msg_prompt = []

    class Raising:
        name = "raising"
        prompt_position = ("system_msg_prompt", None)

        def _format_2_prompt(self, ctx):
            raise RuntimeError("disk gone")

    class Invalid:
        name = "invalid"
        prompt_position = (None, "system_prompt")

        def _format_2_prompt(self, ctx):
            return {"not": "a prompt"}

    class Undeclared:
        name = "undeclared"
        description = "no injection"

    ctx = {"user_input": {"input": "x", "additional_info": {"lang": "zh"}}}
    scene = pi.record(ctx, tools=[Raising(), Invalid(), Undeclared()], chat_llm=ChatLLM())
    data = scene.to_dict()
    assert data["chat_llm"] == {
        "system_msg_prompt": [
            {
                "kind": "additional_info",
                "template": {"engine": "jinja2", "templates": {"default": "lang={{ lang }}"}},
            }
        ]
    }
    assert [t.get("format_2_prompt") for t in data["tools"]] == [
        {"returns": "raise", "error": "disk gone"},
        {"returns": "invalid", "value": {"not": "a prompt"}},
        None,
    ]
    report = scene.render("chat")
    assert [t["status"] for t in report["tools"]] == ["error", "silent", "undeclared"]
    assert report["segments"][0]["text"] == "lang=zh"


def test_a_saved_recording_renders_the_same_through_the_command_line(tmp_path, cli):
    scene = pi.record(CTX, tools=TOOLS, chat_llm=CHAT, name="notes")
    path = tmp_path / "notes.scene.json"
    scene.save(path)
    text = path.read_text(encoding="utf-8")
    assert "工作笔记" in text  # non-ASCII kept
    assert list(json.loads(text)) == ["format", "name", "context", "chat_llm", "tools"]
    for llm in ["chat", "desk"]:
        out = subprocess.run(
            [cli, "render", str(path), "--llm", llm, "--format", "json", "--no-tokens"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        assert json.loads(out) == pi.render(path, llm) == scene.render(llm)


def test_a_context_that_is_not_json_like_is_refused():
    with pytest.raises(TypeError, match="context must be a mapping"):
        pi.record(["not", "a", "mapping"])


def test_argument_schemas_are_recorded_and_define_the_tools_in_every_request():
    import pydantic

    class Args(pydantic.BaseModel):
        q: str

    class Duck:
        def __init__(self, name, **attrs):
            self.name = name
            self.prompt_position = None
            for k, v in attrs.items():
                setattr(self, k, v)

    class WithMethod:
        def json_schema(self):
            return {"type": "object", "properties": {"path": {"type": "string"}}}

    tools = [
        Duck("from_model", params_schema=Args),
        Duck("from_method", params_schema=WithMethod()),
        Duck("from_mapping", parameters={"type": "object", "properties": {}}),
        Duck("without"),
    ]
    scene = pi.record(CTX, tools=tools)
    recorded = {t["name"]: t.get("parameters") for t in scene.to_dict()["tools"]}
    assert recorded == {
        "from_model": Args.model_json_schema(),
        "from_method": WithMethod().json_schema(),
        "from_mapping": {"type": "object", "properties": {}},
        "without": None,
    }
    chat = scene.render("chat")
    defined = [t["name"] for t in chat["tools"] if "definition" in t]
    assert defined == ["from_model", "from_method", "from_mapping"]
