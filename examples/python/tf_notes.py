"""TFRobot's TFNotes tools, written against prompt_inspector.tfrobot as they are written against
TFRobot: a string with literal braces, a NormalizePrompt with English and Chinese templates, and
a memo only ChatLLM sees. `record_notes.py` records them into `notes.scene.json`."""

from typing import ClassVar, List, Literal, Optional

import pydantic

from prompt_inspector.tfrobot import (
    BaseTool,
    FStrPromptTemplate,
    Jinja2PromptTemplate,
    Locale,
    NormalizePrompt,
)


class UserInput(pydantic.BaseModel):
    input: str
    additional_info: dict = {}


class PromptContext(pydantic.BaseModel):
    """The fields of TFRobot's PromptContext a tool reads."""

    user_input: UserInput
    conversation: list = []
    runtime_vars: dict = {}
    neural: dict = {}


class NotesArgs(pydantic.BaseModel):
    """The arguments the model calls tf_notes with: its definition in every request."""

    action: Literal["add", "list", "clear"] = pydantic.Field(description="What to do with the notes.")
    text: Optional[str] = pydantic.Field(default=None, description="The note to add (action add only).")


class TFNotesTool(BaseTool):
    name: ClassVar[str] = "tf_notes"
    description: ClassVar[str] = "记录工作笔记，自动注入到下一轮 LLM 决策的 prompt"
    prompt_position: ClassVar = ("system_msg_prompt", "system_prompt")
    params_schema: ClassVar = NotesArgs

    def __init__(self, notes: List[str]) -> None:
        self._notes = list(notes)

    def _format_2_prompt(self, prompt_ctx):
        if not self._notes:
            return None
        body = "\n".join(f"- {n}" for n in self._notes)
        # Literal braces ("代码 {x: 1}") are escaped by the framework: no KeyError.
        return f"# 工作笔记（截至当前轮）\n\n{body}"


class TFNotesI18nTool(TFNotesTool):
    name: ClassVar[str] = "tf_notes_i18n"
    description: ClassVar[str] = "工作笔记，按语言渲染"

    def _format_2_prompt(self, prompt_ctx):
        if not self._notes:
            return None
        notes_text = "\n".join(f"- {n}" for n in self._notes)
        # Written as a template: the braces that are not placeholders are doubled by hand.
        return NormalizePrompt(
            template=FStrPromptTemplate(
                templates={
                    Locale.EN: f"# Working notes (user={{user_input[input]}})\n\n{notes_text}",
                    Locale.ZH: f"# 工作笔记（用户={{user_input[input]}}）\n\n{notes_text}",
                },
                active_language=Locale.ZH,
            )
        )


class ChatOnlyMemoTool(BaseTool):
    name: ClassVar[str] = "chat_memo"
    description: ClassVar[str] = "对话备忘，仅在 ChatLLM 下注入"
    prompt_position: ClassVar = ("after_input_msg_prompt", None)

    def __init__(self, memo: str) -> None:
        self._memo = memo

    def _format_2_prompt(self, ctx):
        return self._memo or None


CONTEXT = PromptContext(user_input=UserInput(input="帮我分析这份季度报告 PDF"))
TOOLS = [
    TFNotesTool(["待办：先抽取目录", "用户更关心方法论而非数字", "代码 {x: 1}"]),
    TFNotesI18nTool(["章节 3 的表格需要复核"]),
    ChatOnlyMemoTool("备忘：回答用中文，先给结论"),
]
CHAT_LLM = {
    "system_msg_prompt": [
        NormalizePrompt(template=FStrPromptTemplate(templates={Locale.DEFAULT: "你是一个研究助理。"}))
    ],
    "after_input_msg_prompt": [
        NormalizePrompt(
            template=Jinja2PromptTemplate(
                templates={Locale.DEFAULT: "（对话已有 {{ conversation|length }} 条消息）"}
            )
        )
    ],
}
DESK_LLM = {
    "adapter": "claude_desk",
    "system_prompt": [
        NormalizePrompt(template=FStrPromptTemplate(templates={Locale.DEFAULT: "You operate a desktop."}))
    ],
}
