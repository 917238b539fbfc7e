"""A Python implementation of TFRobot's prompt injection, written for the whole-process
comparison in bench/compare_render.py (it is not part of the product).

It follows the design as TFRobot would run it: a pydantic PromptContext, `model_dump(mode="json")`
of the whole context for every NormalizePrompt render, `str.format_map` for f-string templates,
a Jinja2 `Environment` for Jinja2 ones, `format_2_prompt` normalisation with brace escaping, the
collector's short-circuits, and ChatLLM's message order. It prints the chat messages as JSON so
the comparison can check that both implementations agree.

Usage: python bench/py_inspector.py SCENE.json
"""

import json
import sys
from typing import Any

import jinja2
from pydantic import BaseModel, ConfigDict

LEGAL = {
    0: {
        "system_msg_prompt",
        "before_input_msg_prompt",
        "after_input_msg_prompt",
        "after_intermediate_msg_prompt",
    },
    1: {"system_prompt", "instruction_prompt", "intermediate_prompt", "current_desk_screenshot_prompt"},
}
ENV = jinja2.Environment()


class UserInput(BaseModel):
    model_config = ConfigDict(extra="allow")
    input: str = ""
    additional_info: dict = {}


class Message(BaseModel):
    model_config = ConfigDict(extra="allow")
    role: str
    content: Any = ""


class PromptTool(BaseModel):
    name: str
    description: str = ""


class PromptContext(BaseModel):
    model_config = ConfigDict(extra="allow")
    user_input: UserInput = UserInput()
    conversation: list[Message] = []
    runtime_vars: dict = {}
    neural: dict = {}
    tools: list[PromptTool] = []


def render_template(spec, variables):
    templates = spec["templates"]
    text = templates.get(spec.get("active_language") or "default", templates.get("default"))
    if text is None:
        raise KeyError("no template")
    if spec["engine"] == "fstring":
        return text.format_map(variables)
    return ENV.from_string(text).render(**variables)


def render_prompt(prompt, ctx):
    try:
        if prompt["kind"] == "additional_info":
            return render_template(prompt["template"], ctx.user_input.additional_info)
        # NormalizePrompt.format_2_str: the whole context, dumped for every render.
        return render_template(prompt["template"], ctx.model_dump(mode="json"))
    except Exception:  # noqa: BLE001 - TFRobot degrades every render failure
        return ""


def valid(tool):
    pos, f2p = tool.get("prompt_position"), tool.get("format_2_prompt")
    if pos is None:
        return f2p is None
    if f2p is None or (pos[0] is None and pos[1] is None):
        return False
    return all(p is None or p in LEGAL[i] for i, p in enumerate(pos))


def format_2_prompt(tool, ctx):
    f2p = tool["format_2_prompt"]
    kind = f2p["returns"]
    if kind == "prompt":
        return f2p["prompt"]
    if kind != "str":
        return None
    try:
        text = render_template(
            f2p["source"], {"state": tool.get("state"), "ctx": ctx.model_dump(mode="json")}
        )
    except Exception:  # noqa: BLE001 - TFRobot degrades every render failure
        return None
    if not text:
        return None
    escaped = text.replace("{", "{{").replace("}", "}}")
    return {"kind": "normalize", "template": {"engine": "fstring", "templates": {"default": escaped}}}


def collect(tools, ctx, index):
    buckets = {}
    for tool in tools:
        pos = tool.get("prompt_position")
        if pos is None or pos[index] is None:
            continue
        prompt = format_2_prompt(tool, ctx)
        if prompt is not None:
            buckets.setdefault(pos[index], []).append(prompt)
    return buckets


def render_chat(scene):
    """The chat report's messages for a scene dict, as `{"llm": "chat", "messages": [...]}`."""
    seen, tools = set(), []
    for t in scene.get("tools", []):
        if t["name"] not in seen:
            seen.add(t["name"])
            tools.append(t)
    tools = [t for t in tools if valid(t)]
    raw = dict(scene.get("context", {}))
    raw.setdefault("tools", [{"name": t["name"], "description": t.get("description", "")} for t in tools])
    ctx = PromptContext(**raw)
    buckets = collect(tools, ctx, 0)
    chat = scene.get("chat_llm", {})

    def segment(name):
        pieces = [render_prompt(p, ctx) for p in chat.get(name, []) + buckets.get(name, [])]
        return "\n".join(p for p in pieces if p)

    messages = []

    def system(name):
        text = segment(name)
        if text:
            messages.append({"role": "system", "content": text})

    system("system_msg_prompt")
    messages.extend({"role": m.role, "content": m.content} for m in ctx.conversation)
    system("before_input_msg_prompt")
    user = segment("reformat_input_prompt") or ctx.user_input.input
    if user:
        messages.append({"role": "user", "content": user})
    system("after_input_msg_prompt")
    messages.extend(
        {"role": m["role"], "content": m.get("content", "")} for m in scene.get("intermediate_msgs", [])
    )
    system("after_intermediate_msg_prompt")
    return {"llm": "chat", "messages": messages}


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        scene = json.load(f)
    json.dump(render_chat(scene), sys.stdout, ensure_ascii=False, indent=2)


if __name__ == "__main__":
    main()
