"""The pytest plugin (entry point ``pytest11``): the ``prompt_golden`` fixture compares a scene's
reports, both families', with a golden beside the test, exactly as ``prompt-inspector check``
compares a scene file with its golden; ``pytest --prompt-bless`` writes the goldens instead."""

from __future__ import annotations

import os
from typing import Any, Mapping, Union

import pytest

from . import Scene, _call, _scene

PathLike = Union[str, "os.PathLike[str]"]


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("prompt_inspector")
    group.addoption(
        "--prompt-bless",
        action="store_true",
        default=False,
        help="write the prompt_golden goldens instead of comparing with them",
    )


class PromptGolden:
    """``check(scene, name)``: the scene against ``<name>.golden.json`` in the test's folder."""

    def __init__(self, folder: str, bless: bool) -> None:
        self.folder = folder
        self.bless = bless

    def path(self, name: str) -> str:
        return os.path.join(self.folder, f"{name}.golden.json")

    def check(self, scene: Union[PathLike, Mapping[str, Any], Scene], name: str) -> None:
        s = _scene(scene)
        golden_path = self.path(name)
        answer = _call(
            "golden",
            {"text": s.text, "base_dir": s.base_dir, "golden_path": golden_path, "bless": self.bless},
        )
        status = answer["status"]
        if status == "missing_golden":
            pytest.fail(f"no golden {golden_path}: run pytest --prompt-bless to write it", pytrace=False)
        if status == "mismatch":
            pytest.fail(
                f"{golden_path}: the reports differ from the golden (pytest --prompt-bless accepts them)\n"
                f"{answer['diff']}",
                pytrace=False,
            )


@pytest.fixture
def prompt_golden(request: Any) -> PromptGolden:
    folder = os.path.dirname(str(request.path if hasattr(request, "path") else request.fspath))
    return PromptGolden(folder, bool(request.config.getoption("--prompt-bless")))
