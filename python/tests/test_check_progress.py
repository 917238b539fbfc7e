"""`check`'s progress bar: drawn on stderr when it is a terminal, never when it is piped."""

import os
import pathlib
import pty
import subprocess


def test_progress_bar_only_on_a_terminal(repo: pathlib.Path, cli: str) -> None:
    fixtures = str(repo / "fixtures")
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [cli, "check", "--jobs", "1", fixtures],
            stdout=subprocess.PIPE,
            stderr=follower,
            timeout=120,
        )
        os.close(follower)
        follower = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0
    scenes = sum(1 for _ in (repo / "fixtures").rglob("*.scene.json"))
    assert f"/{scenes} scenes, 0 failed".encode() in drawn
    # The bar is erased before each line and at the end, so stdout stays clean.
    assert drawn.endswith(b"\r\x1b[2K")
    assert b"\x1b" not in done.stdout

    piped = subprocess.run([cli, "check", fixtures], capture_output=True, timeout=120)
    assert piped.returncode == 0
    assert piped.stderr == b""
