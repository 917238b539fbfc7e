"""TFRobot's BaseTool unit table (docs/rules.md), row by row, on prompt_inspector.tfrobot."""

import logging
from typing import ClassVar

import pytest

from prompt_inspector.tfrobot import (
    AdditionalInfoPrompt,
    BaseTool,
    FStrPromptTemplate,
    Jinja2PromptTemplate,
    Locale,
    NormalizePrompt,
    TFProtocolError,
)

CTX = {"user_input": {"input": "分析 PDF", "additional_info": {"lang": "zh"}}, "conversation": []}


def tool_returning(value, position=("system_msg_prompt", "system_prompt")):
    class Tool(BaseTool):
        name: ClassVar[str] = "t"
        prompt_position: ClassVar = position

        def _format_2_prompt(self, prompt_ctx):
            if isinstance(value, Exception):
                raise value
            return value

    return Tool()


def test_a_tool_that_neither_declares_nor_overrides_imports():
    class Plain(BaseTool):
        name: ClassVar[str] = "plain"

    assert Plain().format_2_prompt(CTX) is None


def test_override_without_position_is_a_type_error():
    with pytest.raises(TypeError, match="overrides _format_2_prompt"):

        class Tool(BaseTool):
            def _format_2_prompt(self, prompt_ctx):
                return "x"


def test_an_unknown_chat_position_is_a_value_error():
    with pytest.raises(ValueError, match=r'prompt_position\[0\]="WRONG" is not a ChatLLM position'):
        tool_returning("x", ("WRONG", "system_prompt"))


@pytest.mark.parametrize(
    ("desk", "rule"),
    [
        ("purpose_prompt", "iron_rule_1"),
        ("original_desk_screenshot_prompt", "iron_rule_2"),
        ("prefix_prompt", "iron_rule_1"),
    ],
)
def test_a_forbidden_desk_position_is_a_value_error_naming_its_rule(desk, rule):
    with pytest.raises(ValueError, match=rule):
        tool_returning("x", ("system_msg_prompt", desk))


@pytest.mark.parametrize(
    ("chat", "rule"),
    [
        ("reformat_input_prompt", "iron_rule_1"),
        ("conversation_msgs", "architecture_boundary"),
        ("intermediate_msgs", "architecture_boundary"),
    ],
)
def test_a_forbidden_chat_position_is_a_value_error_naming_its_rule(chat, rule):
    with pytest.raises(ValueError, match=rule):
        tool_returning("x", (chat, None))


def test_both_sides_none_is_a_value_error():
    with pytest.raises(ValueError, match=r"\(None, None\)"):
        tool_returning("x", (None, None))


def test_one_sided_positions_import():
    assert tool_returning("x", ("system_msg_prompt", None)).prompt_position == ("system_msg_prompt", None)
    assert tool_returning("x", (None, "system_prompt")).prompt_position == (None, "system_prompt")


def test_a_position_without_override_is_a_type_error():
    with pytest.raises(TypeError, match="does not override _format_2_prompt"):

        class Tool(BaseTool):
            prompt_position: ClassVar = ("system_msg_prompt", None)


def test_the_checks_run_in_the_documented_order():
    # (None, None) without an override: the missing override is reported first.
    with pytest.raises(TypeError, match="does not override"):

        class Tool(BaseTool):
            prompt_position: ClassVar = (None, None)

    # The chat side before the desk side.
    with pytest.raises(ValueError, match=r"prompt_position\[0\]"):
        tool_returning("x", ("purpose_prompt", "prefix_prompt"))


def test_a_string_becomes_a_normalize_prompt_that_renders_back_to_itself():
    prompt = tool_returning("hello").format_2_prompt(CTX)
    assert prompt == NormalizePrompt(template=FStrPromptTemplate(templates={Locale.DEFAULT: "hello"}))
    braces = tool_returning("代码 {x: 1} }}{{").format_2_prompt(CTX)
    assert braces.template.templates == {"default": "代码 {{x: 1}} }}}}{{{{"}
    assert braces.format_2_str(CTX) == "代码 {x: 1} }}{{"


@pytest.mark.parametrize("empty", ["", None])
def test_empty_and_none_give_none(empty):
    assert tool_returning(empty).format_2_prompt(CTX) is None


def test_a_prompt_passes_through_unchanged():
    prompt = NormalizePrompt(
        template=FStrPromptTemplate(
            templates={
                Locale.EN: "# Notes (user={user_input[input]})",
                Locale.ZH: "# 笔记（用户={user_input[input]}）",
            },
            active_language=Locale.ZH,
        )
    )
    assert tool_returning(prompt).format_2_prompt(CTX) is prompt
    assert prompt.format_2_str(CTX) == "# 笔记（用户=分析 PDF）"


def test_a_raising_tool_gives_none_and_logs_at_error(caplog):
    with caplog.at_level(logging.ERROR, logger="prompt_inspector.tfrobot"):
        assert tool_returning(RuntimeError("disk gone")).format_2_prompt(CTX) is None
    [record] = caplog.records
    assert record.levelno == logging.ERROR
    assert "Tool t format_2_prompt failed, falling back to None: disk gone" in record.getMessage()
    assert record.exc_info is not None


def test_an_invalid_return_is_a_protocol_error():
    with pytest.raises(TFProtocolError) as e:
        tool_returning({"not": "allowed"}).format_2_prompt(CTX)
    assert e.value.protocol == "tool_format_2_prompt"
    assert "got dict" in str(e.value)


def test_normalize_sees_the_whole_context_and_additional_info_only_its_part():
    pydantic = pytest.importorskip("pydantic")

    class UserInput(pydantic.BaseModel):
        input: str
        additional_info: dict

    class PromptContext(pydantic.BaseModel):
        user_input: UserInput
        conversation: list

    ctx = PromptContext(user_input=UserInput(input="hi", additional_info={"lang": "zh"}), conversation=[1, 2])
    whole = NormalizePrompt(
        template=Jinja2PromptTemplate(
            templates={Locale.DEFAULT: "{{ conversation|length }} {{ user_input.input }}"}
        )
    )
    assert whole.format_2_str(ctx) == "2 hi"
    part = AdditionalInfoPrompt(template=FStrPromptTemplate(templates={Locale.DEFAULT: "lang={lang}"}))
    assert part.format_2_str(ctx) == "lang=zh"


def test_a_render_failure_warns_and_gives_empty_text():
    prompt = NormalizePrompt(template=FStrPromptTemplate(templates={Locale.DEFAULT: "{missing}"}))
    with pytest.warns(UserWarning, match="NormalizePrompt render failed: 'missing'"):
        assert prompt.format_2_str(CTX) == ""
