"""Prompt Inspector for Python: the Rust core's engines and operations, linked in.

``format_map`` and ``render_jinja2`` render as CPython's ``str.format_map`` and Jinja2 do;
``render``, ``run``, ``rules``, ``check`` and ``load`` are the command line's commands over
scenes (docs/python.md).
"""

from __future__ import annotations

import ast
import builtins
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Union

from . import _core

__all__ = [
    "Scene",
    "record",
    "SceneError",
    "TemplateError",
    "check",
    "format_map",
    "load",
    "render",
    "render_jinja2",
    "rules",
    "run",
]

PathLike = Union[str, "os.PathLike[str]"]

#: The exceptions ``str.format_map`` raises, by name.
_BUILTIN_ERRORS = {
    name: getattr(builtins, name)
    for name in (
        "KeyError",
        "IndexError",
        "ValueError",
        "AttributeError",
        "TypeError",
        "OverflowError",
        "ZeroDivisionError",
    )
}


class TemplateError(Exception):
    """A Jinja2 template failed: ``kind`` is Jinja2's class name (``TemplateSyntaxError``,
    ``UndefinedError``, ...), ``lineno`` the 1-based line, ``start``/``end`` byte offsets."""

    def __init__(
        self,
        message: str,
        *,
        kind: str,
        lineno: Optional[int] = None,
        start: Optional[int] = None,
        end: Optional[int] = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.lineno = lineno
        self.start = start
        self.end = end

    def __repr__(self) -> str:
        return f"TemplateError({self.message!r}, kind={self.kind!r}, lineno={self.lineno!r})"


class SceneError(Exception):
    """A scene could not be read or does not load: ``file``, 1-based ``line`` and ``column``,
    and ``field`` (the scene field's path, such as ``tools[1].prompt_position``) where known."""

    def __init__(
        self,
        message: str,
        *,
        file: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        field: Optional[str] = None,
        code: str = "load_error",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column
        self.field = field
        self.code = code

    def __str__(self) -> str:
        where = ":".join(str(p) for p in (self.file, self.line, self.column) if p is not None)
        return f"{where}: {self.message}" if where else self.message


def _builtin_error(kind: str, message: str) -> BaseException:
    cls = _BUILTIN_ERRORS.get(kind)
    if cls is None:
        return ValueError(message)
    if cls is KeyError:
        # CPython raises KeyError(key): its str() is the key's repr, which the core reports.
        try:
            return KeyError(ast.literal_eval(message))
        except (ValueError, SyntaxError):
            return KeyError(message)
    error: BaseException = cls(message)
    return error


def format_map(template: str, mapping: Any) -> str:
    """Exactly ``template.format_map(mapping)`` for JSON-like values (an object with
    ``model_dump`` is dumped with ``mode="json"``); failures raise the exception CPython
    raises, with its message."""
    try:
        return _core.format_map(template, mapping)
    except _core.EngineError as e:
        kind, message = e.args[0], e.args[1]
        raise _builtin_error(kind, message) from None


def render_jinja2(template: str, mapping: Any) -> str:
    """Exactly ``jinja2.Environment().from_string(template).render(mapping)``; failures raise
    ``TemplateError``."""
    try:
        return _core.render_jinja2(template, mapping)
    except _core.EngineError as e:
        kind, message, line, _column, start, end = e.args
        raise TemplateError(message, kind=kind, lineno=line, start=start, end=end) from None


def _call(operation: str, request: Mapping[str, Any]) -> Any:
    try:
        return _core.dispatch(operation, request)
    except _core.CoreError as e:
        error = json.loads(e.args[0])
        if error.get("code") in ("load_error", "io_error", "no_run"):
            raise SceneError(
                error.get("message", ""),
                file=error.get("file"),
                line=error.get("line"),
                column=error.get("column"),
                field=error.get("field"),
                code=error["code"],
            ) from None
        raise ValueError(error.get("message", str(error))) from None


class Scene:
    """A scene (``scene@1``): its JSON text, and the file it came from or was saved to."""

    def __init__(self, text: str, path: Optional[str] = None) -> None:
        self.text = text
        self.path = path

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Scene:
        text = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
        scene = cls(text)
        scene._check()
        return scene

    def _check(self) -> None:
        report = _call("validate", {"text": self.text})
        error = report.get("load_error")
        if error:
            raise SceneError(
                error.get("message", ""),
                file=self.path,
                line=error.get("line"),
                column=error.get("column"),
                field=error.get("field"),
            )

    def to_dict(self) -> Dict[str, Any]:
        data: Dict[str, Any] = json.loads(self.text)
        return data

    @property
    def name(self) -> str:
        return str(self.to_dict().get("name", ""))

    @property
    def base_dir(self) -> Optional[str]:
        return os.path.dirname(os.path.abspath(self.path)) if self.path else None

    def render(self, llm: str = "chat", *, tokens: bool = False) -> Dict[str, Any]:
        """The report of ``prompt-inspector render --format json``."""
        request = {"text": self.text, "llm": llm, "tokens": tokens, "base_dir": self.base_dir}
        report: Dict[str, Any] = _call("render", request)["report"]
        return report

    def run(self) -> Dict[str, Any]:
        """The report of ``prompt-inspector run --format json``: every request whole."""
        shared = _call("run", {"text": self.text, "base_dir": self.base_dir})["report"]
        return _whole_requests(shared)

    def save(self, path: PathLike) -> None:
        """Writes the scene atomically (refused, leaving the file as it was, if it does not load)."""
        target = os.fspath(path)
        _call("save", {"path": target, "text": self.text})
        self.path = target

    def __repr__(self) -> str:
        where = f" from {self.path!r}" if self.path else ""
        return f"<Scene {self.name!r}{where}, {len(self.text)} bytes>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scene) and other.to_dict() == self.to_dict()


def _whole_requests(shared: Dict[str, Any]) -> Dict[str, Any]:
    """The run report as `run --format json` prints it, from the form that keeps each message once."""
    messages = shared["messages"]
    iterations = []
    for it in shared["iterations"]:
        whole = {"request": messages[: it["request_messages"]]}
        whole.update((k, v) for k, v in it.items() if k != "request_messages")
        iterations.append(whole)
    out: Dict[str, Any] = {
        "initial_cwd": shared["initial_cwd"],
        "system": shared["system"],
        "iterations": iterations,
    }
    if shared.get("next_request_messages") is not None:
        out["next_request"] = messages[: shared["next_request_messages"]]
    out["ignored_iterations"] = shared["ignored_iterations"]
    out["dropped_system_messages"] = shared["dropped_system_messages"]
    if shared.get("models"):
        out["models"] = shared["models"]
    if shared.get("diagnostics"):
        out["diagnostics"] = shared["diagnostics"]
    return out


def load(path: PathLike) -> Scene:
    """Reads a scene file; ``SceneError`` when it cannot be read or does not load."""
    target = os.fspath(path)
    answer = _call("open", {"path": target})
    return Scene(answer["text"], target)


def _scene(scene: Union[PathLike, Mapping[str, Any], Scene]) -> Scene:
    if isinstance(scene, Scene):
        return scene
    if isinstance(scene, Mapping):
        # Not validated first: the operation that uses it refuses a scene that does not load.
        return Scene(_core.scene_text(scene))
    return load(scene)


def render(
    scene: Union[PathLike, Mapping[str, Any], Scene], llm: str = "chat", *, tokens: bool = False
) -> Dict[str, Any]:
    """The report of ``prompt-inspector render --format json`` as Python values."""
    return _scene(scene).render(llm, tokens=tokens)


def run(scene: Union[PathLike, Mapping[str, Any], Scene]) -> Dict[str, Any]:
    """The report of ``prompt-inspector run --format json`` as Python values."""
    return _scene(scene).run()


def rules() -> List[Dict[str, Any]]:
    """The 14 segments: each with its family, whether it is legal, and the rule and reason of a
    forbidden one."""
    segments: List[Dict[str, Any]] = _call("rules", {})["segments"]
    return segments


def check(*paths: PathLike, bless: bool = False) -> List[Dict[str, Any]]:
    """Each scene under ``paths`` against its golden: ``{path, status, diff?}`` per scene, status
    ``ok``, ``mismatch``, ``missing_golden`` or ``unreadable``. ``bless=True`` writes the goldens
    of the scenes that load (their status is then ``blessed``)."""
    out: List[Dict[str, Any]] = []
    for p in paths:
        answer = _call("check", {"folder": os.fspath(p)})
        for s in answer["scenes"]:
            entry: Dict[str, Any] = {"path": s["path"], "status": s["status"]}
            if s.get("diff"):
                entry["diff"] = s["diff"]
            if s.get("error"):
                entry["error"] = s["error"].get("message")
            if bless and s["status"] in ("mismatch", "missing_golden"):
                _call("approve", {"scene_path": s["path"]})
                entry["status"] = "blessed"
            out.append(entry)
    return out


from .recording import record  # noqa: E402 - it builds on Scene and rules above
