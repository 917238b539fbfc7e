"""``record(...)``: a scene from live Python objects (docs/python.md, "Recording").

Each tool is asked what it injects by calling its real ``_format_2_prompt(context)`` (the
override the framework's ``format_2_prompt`` normalises), only when the collector would ask it:
it declares ``prompt_position`` and one side of the pair is set. What it gave is recorded as the
scene format's ``Returns``: a string as its literal, a prompt as itself, nothing, the exception's
message, or an invalid value. TFRobot's own objects record without importing TFRobot: prompts
are read through ``.template.templates`` and ``.template.active_language``, the engine told by
the template's class name, the LLMs through their ``*_prompt`` attributes.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Mapping, Optional

from . import Scene, rules

_MISSING = object()


def _jsonable(value: Any) -> Any:
    """``value`` as JSON data (a pydantic model dumped in JSON mode), or ``_MISSING``."""
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    try:
        return json.loads(json.dumps(value, ensure_ascii=False))
    except (TypeError, ValueError):
        return _MISSING


def _template(template: Any) -> Dict[str, Any]:
    if hasattr(template, "to_dict"):
        return dict(template.to_dict())
    engine = "jinja2" if "jinja" in type(template).__name__.lower() else "fstring"
    templates = {
        getattr(k, "value", k): v for k, v in dict(getattr(template, "templates", None) or {}).items()
    }
    out: Dict[str, Any] = {"engine": engine, "templates": {str(k): v for k, v in templates.items()}}
    active = getattr(template, "active_language", None)
    active = getattr(active, "value", active)
    if active is not None and str(active) != "default":
        out["active_language"] = str(active)
    return out


def _prompt(prompt: Any) -> Dict[str, Any]:
    if hasattr(prompt, "to_dict"):
        return dict(prompt.to_dict())
    kind = "additional_info" if "additionalinfo" in type(prompt).__name__.lower() else "normalize"
    return {"kind": kind, "template": _template(prompt.template)}


def _segments(family: str) -> List[str]:
    return [s["name"] for s in rules() if s["family"] == family and s["configured"]]


def _llm(llm: Any, family: str) -> Optional[Dict[str, Any]]:
    if llm is None:
        return None
    get = llm.get if isinstance(llm, Mapping) else lambda k, d=None: getattr(llm, k, d)
    out: Dict[str, Any] = {}
    if family == "desk":
        adapter = get("adapter", None)
        adapter = getattr(adapter, "value", adapter)
        if adapter is not None:
            out["adapter"] = str(adapter)
    for name in _segments(family):
        prompts = get(name, None)
        if prompts:
            out[name] = [_prompt(p) for p in prompts]
    return out


def _message(message: Any) -> Any:
    data = _jsonable(message)
    if data is _MISSING:
        raise TypeError(f"an intermediate message is not JSON-like: {message!r}")
    return data


def _asks(position: Any) -> bool:
    return position is not None and any(p is not None for p in position)


def _returns(tool: Any, context: Any) -> Dict[str, Any]:
    """What the tool's ``_format_2_prompt`` override gives, as the scene's ``Returns``. A tool the
    collector would not ask (no side of its position set) is not called."""
    if not _asks(getattr(tool, "prompt_position", None)):
        return {"returns": "none"}
    try:
        raw = tool._format_2_prompt(context)
    except Exception as e:  # noqa: BLE001 - the recording keeps what a raising tool says
        return {"returns": "raise", "error": str(e) or type(e).__name__}
    if raw is None or (isinstance(raw, str) and raw == ""):
        return {"returns": "none"}
    if isinstance(raw, str):
        escaped = raw.replace("{", "{{").replace("}", "}}")
        return {"returns": "str", "source": {"engine": "fstring", "templates": {"default": escaped}}}
    if hasattr(raw, "template") or hasattr(raw, "to_dict"):
        return {"returns": "prompt", "prompt": _prompt(raw)}
    value = _jsonable(raw)
    return {"returns": "invalid", "value": repr(raw) if value is _MISSING else value}


def _overrides(tool: Any) -> bool:
    """Whether the tool's class overrides ``_format_2_prompt`` below the framework's base class."""
    for cls in type(tool).__mro__:
        if "_format_2_prompt" in cls.__dict__:
            return cls.__name__ != "BaseTool"
    return False


def _parameters(tool: Any) -> Optional[Dict[str, Any]]:
    """The tool's argument schema as JSON Schema: ``params_schema`` as a pydantic model class
    (``model_json_schema()``), an object with ``json_schema()``, or a mapping; else a
    ``parameters`` mapping; else none."""
    schema = getattr(tool, "params_schema", None)
    if isinstance(schema, type) and hasattr(schema, "model_json_schema"):
        found: Any = schema.model_json_schema()
    elif schema is not None and hasattr(schema, "json_schema"):
        found = schema.json_schema()
    elif isinstance(schema, Mapping):
        found = schema
    else:
        found = getattr(tool, "parameters", None)
    if not isinstance(found, Mapping):
        return None
    data = _jsonable(dict(found))
    return None if data is _MISSING else dict(data)


def _tool(tool: Any, context: Any) -> Dict[str, Any]:
    cls = type(tool)
    name = getattr(tool, "name", None) or getattr(cls, "name", None) or cls.__name__
    out: Dict[str, Any] = {"name": str(name)}
    description = getattr(tool, "description", None)
    if description:
        out["description"] = str(description)
    parameters = _parameters(tool)
    if parameters is not None:
        out["parameters"] = parameters
    position = getattr(tool, "prompt_position", None)
    out["prompt_position"] = None if position is None else list(position)
    state = getattr(tool, "state", _MISSING)
    if state is not _MISSING and not callable(state):
        data = _jsonable(state)
        if data is not _MISSING:
            out["state"] = data
    if _overrides(tool):
        out["format_2_prompt"] = _returns(tool, context)
    return out


def record(
    context: Any,
    *,
    tools: Iterable[Any] = (),
    chat_llm: Any = None,
    desk_llm: Any = None,
    intermediate_msgs: Iterable[Any] = (),
    name: Optional[str] = None,
    description: Optional[str] = None,
) -> Scene:
    """A scene (``scene@1``) from live objects: ``context`` a mapping or a model with
    ``model_dump`` (TFRobot's ``PromptContext``), ``tools`` the tool instances in call order,
    ``chat_llm``/``desk_llm`` mappings of segment names (and ``adapter``) to prompt lists, or
    objects with those attributes."""
    ctx = _jsonable(context)
    if ctx is _MISSING or not isinstance(ctx, dict):
        raise TypeError("context must be a mapping or a model with model_dump(mode='json')")
    scene: Dict[str, Any] = {"format": "prompt-inspector/scene@1"}
    if name is not None:
        scene["name"] = name
    if description is not None:
        scene["description"] = description
    scene["context"] = ctx
    messages = [_message(m) for m in intermediate_msgs]
    if messages:
        scene["intermediate_msgs"] = messages
    chat = _llm(chat_llm, "chat")
    if chat is not None:
        scene["chat_llm"] = chat
    desk = _llm(desk_llm, "desk")
    if desk is not None:
        scene["desk_llm"] = desk
    scene["tools"] = [_tool(t, context) for t in tools]
    return Scene.from_dict(scene)
