"""TFRobot's tool prompt-injection classes as its design writes them (docs/python.md), for tools
written against them and for their tests, rendering through the core.

- ``BaseTool``: the ClassVars ``name``, ``description``, ``prompt_position``; the framework
  method ``format_2_prompt(prompt_ctx)`` and the override point ``_format_2_prompt``. Subclasses
  are validated at class definition by the core's own rules (the ones ``prompt-inspector rules``
  prints), raising ``TypeError`` or ``ValueError`` with the core's message.
- ``NormalizePrompt`` (the whole context as variables), ``AdditionalInfoPrompt`` (only
  ``user_input.additional_info``), ``FStrPromptTemplate`` and ``Jinja2PromptTemplate`` with
  ``Locale``; ``TFProtocolError``.
"""

from __future__ import annotations

import enum
import json
import logging
import warnings
from typing import Any, ClassVar, Dict, Mapping, Optional, Tuple, Union

from . import _call, format_map, render_jinja2

__all__ = [
    "AdditionalInfoPrompt",
    "BasePrompt",
    "BasePromptTemplate",
    "BaseTool",
    "FStrPromptTemplate",
    "Jinja2PromptTemplate",
    "Locale",
    "NormalizePrompt",
    "TFProtocolError",
]

logger = logging.getLogger("prompt_inspector.tfrobot")


class Locale(str, enum.Enum):
    DEFAULT = "default"
    EN = "en"
    ZH = "zh"

    def __str__(self) -> str:
        return self.value


class TFProtocolError(Exception):
    """A tool broke a framework protocol; ``protocol`` names it (``tool_format_2_prompt``)."""

    def __init__(self, message: str, *, protocol: str) -> None:
        super().__init__(message)
        self.protocol = protocol


def _locale_key(locale: Union[Locale, str]) -> str:
    return locale.value if isinstance(locale, Locale) else str(locale)


class BasePromptTemplate:
    """Templates by locale; the active language falls back to ``default``."""

    engine: ClassVar[str] = ""

    def __init__(
        self,
        templates: Mapping[Union[Locale, str], str],
        active_language: Union[Locale, str] = Locale.DEFAULT,
    ) -> None:
        self.templates: Dict[str, str] = {_locale_key(k): v for k, v in templates.items()}
        self.active_language = _locale_key(active_language)

    def template_text(self) -> str:
        for key in (self.active_language, Locale.DEFAULT.value):
            if key in self.templates:
                return self.templates[key]
        raise KeyError(
            f"no template for {self.active_language!r} and none for 'default' (has: {sorted(self.templates)})"
        )

    def render(self, variables: Any) -> str:
        raise NotImplementedError

    def to_dict(self) -> Dict[str, Any]:
        """The scene file's ``Template``."""
        out: Dict[str, Any] = {"engine": self.engine, "templates": dict(self.templates)}
        if self.active_language != Locale.DEFAULT.value:
            out["active_language"] = self.active_language
        return out

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(templates={self.templates!r}, active_language={self.active_language!r})"
        )

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_dict() == self.to_dict()


class FStrPromptTemplate(BasePromptTemplate):
    """Python's ``str.format_map`` over the variables."""

    engine: ClassVar[str] = "fstring"

    def render(self, variables: Any) -> str:
        return format_map(self.template_text(), variables)


class Jinja2PromptTemplate(BasePromptTemplate):
    """Jinja2 (default Environment) over the variables."""

    engine: ClassVar[str] = "jinja2"

    def render(self, variables: Any) -> str:
        return render_jinja2(self.template_text(), variables)


def _context_vars(ctx: Any) -> Any:
    if hasattr(ctx, "model_dump"):
        return ctx.model_dump(mode="json")
    return ctx


class BasePrompt:
    """A configured prompt: a template and what it renders over."""

    kind: ClassVar[str] = ""

    def __init__(self, template: BasePromptTemplate) -> None:
        self.template = template

    def variables(self, ctx: Any) -> Any:
        raise NotImplementedError

    def format_2_str(self, ctx: Any) -> str:
        """The rendered text; a failure warns and gives ``""``, as TFRobot does."""
        try:
            return self.template.render(self.variables(ctx))
        except Exception as e:  # noqa: BLE001 - TFRobot degrades every render failure
            warnings.warn(f"{type(self).__name__} render failed: {e}", stacklevel=2)
            return ""

    def to_dict(self) -> Dict[str, Any]:
        """The scene file's ``Prompt``."""
        return {"kind": self.kind, "template": self.template.to_dict()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(template={self.template!r})"

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other.to_dict() == self.to_dict()


class NormalizePrompt(BasePrompt):
    """The whole context (``ctx.model_dump(mode="json")``, or the mapping itself) as variables."""

    kind: ClassVar[str] = "normalize"

    def variables(self, ctx: Any) -> Any:
        return _context_vars(ctx)


class AdditionalInfoPrompt(BasePrompt):
    """Only ``user_input.additional_info`` as variables."""

    kind: ClassVar[str] = "additional_info"

    def variables(self, ctx: Any) -> Any:
        data = _context_vars(ctx)
        user_input = data.get("user_input") or {}
        return user_input.get("additional_info") or {}


Position = Optional[Tuple[Optional[str], Optional[str]]]


def _position_problem(cls: type) -> Optional[BaseException]:
    """The error TFRobot raises at class definition for ``cls``, by the core's rules."""
    position = getattr(cls, "prompt_position", None)
    overrides = getattr(cls, "_format_2_prompt", None) is not BaseTool._format_2_prompt
    if position is not None:
        if not isinstance(position, (tuple, list)) or len(position) != 2:
            return TypeError(
                f"{cls.__name__}.prompt_position must be a (chat_pos | None, desk_pos | None) pair "
                f"or None, not {position!r}"
            )
        position = [p if p is None or isinstance(p, str) else repr(p) for p in position]
    tool: Dict[str, Any] = {"name": cls.__name__, "prompt_position": position}
    if overrides:
        tool["format_2_prompt"] = {"returns": "none"}
    scene = {"format": "prompt-inspector/scene@1", "tools": [tool]}
    [check] = _call("validate", {"text": json.dumps(scene)})["tools"]
    if check["valid"]:
        return None
    cls_of = TypeError if check.get("exception") == "TypeError" else ValueError
    return cls_of(check.get("message", ""))


class BaseTool:
    """A tool. Override ``_format_2_prompt`` and declare ``prompt_position`` to inject text."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    prompt_position: ClassVar[Position] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        problem = _position_problem(cls)
        if problem is not None:
            raise problem

    @property
    def tool_name(self) -> str:
        return self.name or type(self).__name__

    def format_2_prompt(self, prompt_ctx: Any) -> Optional[BasePrompt]:
        """The framework method: ``_format_2_prompt`` normalised to a prompt or ``None``."""
        if type(self)._format_2_prompt is BaseTool._format_2_prompt:
            return None
        try:
            raw = self._format_2_prompt(prompt_ctx)
        except Exception as e:  # noqa: BLE001 - a raising tool must not break the LLM call
            logger.error(
                "Tool %s format_2_prompt failed, falling back to None: %s",
                self.tool_name,
                e,
                exc_info=True,
            )
            return None
        if raw is None or (isinstance(raw, str) and raw == ""):
            return None
        if isinstance(raw, str):
            return self._wrap_str_as_normalize_prompt(raw)
        if isinstance(raw, BasePrompt):
            return raw
        raise TFProtocolError(
            f"Tool {self.tool_name}._format_2_prompt() must return str | BasePrompt | None, "
            f"got {type(raw).__name__}",
            protocol="tool_format_2_prompt",
        )

    @staticmethod
    def _wrap_str_as_normalize_prompt(text: str) -> NormalizePrompt:
        """The one place braces are escaped: a literal string renders back to itself."""
        escaped = text.replace("{", "{{").replace("}", "}}")
        return NormalizePrompt(
            template=FStrPromptTemplate(templates={Locale.DEFAULT: escaped}, active_language=Locale.DEFAULT)
        )

    def _format_2_prompt(self, prompt_ctx: Any) -> Union[str, BasePrompt, None]:
        return None
