"""`verify` through the package: every operation of the core's table (docs/api.md) is reachable
as `_core.dispatch(name, request)`, generated from the same declaration `serve` routes through;
on a recorded pair it answers the command line's report, provenance included."""

import json
import subprocess

from conftest import REPO
from prompt_inspector import _core

# Anthropic's cache write of 1,163 tokens: billed input_tokens 4 + cache_creation 1,163.
PAIR = "corpora/usage/openllmetry/001-anthropic-test-anthropic-prompt-caching-legacy-c1.json"


def test_the_generated_operations_include_verify_beside_check_and_golden():
    names = _core.operations()
    for name in ("check", "golden", "verify"):
        assert name in names


def test_verify_is_the_command_lines_report_with_provenance(cli):
    path = str(REPO / PAIR)
    answer = _core.dispatch("verify", {"paths": [path]})
    out = subprocess.run(
        [cli, "verify", path, "--format", "json"], check=True, capture_output=True, text=True
    ).stdout
    want = json.loads(out)
    assert answer["errors"] == []
    assert answer["report"]["conversations"] == want["conversations"]
    assert answer["report"]["summary"] == want["summary"]
    call = answer["report"]["conversations"][0]["calls"][0]
    assert call["billed"]["input_total"] == 1167
    assert call["billed"]["cache_write"] == {"unspecified": 1163}
    assert call["input"]["provenance"]["kind"] == "estimate"
    assert call["cache_write"]["provenance"]["kind"] == "estimate"
