import os
import pathlib

import pytest

pytest_plugins = ["pytester"]

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def repo() -> pathlib.Path:
    return REPO


@pytest.fixture
def cli(repo: pathlib.Path) -> str:
    """The command line built from this checkout (scripts/test-all builds it before the Python
    tests; PI_CLI names another)."""
    path = os.environ.get("PI_CLI", str(repo / "target/debug/prompt-inspector"))
    assert os.access(path, os.X_OK), f"{path} is missing: cargo build --features cli first"
    return path
