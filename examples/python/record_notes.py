"""Records the TFNotes tools with their live context into notes.scene.json, beside this file:
`python examples/python/record_notes.py`. Open the scene in the app, or check it:
`prompt-inspector check examples/python/`."""

from pathlib import Path

from tf_notes import CHAT_LLM, CONTEXT, DESK_LLM, TOOLS

import prompt_inspector as pi


def record() -> pi.Scene:
    return pi.record(
        CONTEXT,
        tools=TOOLS,
        chat_llm=CHAT_LLM,
        desk_llm=DESK_LLM,
        name="tf-notes-python",
        description="TFRobot's TFNotes tools, recorded from Python (examples/python/tf_notes.py)",
    )


if __name__ == "__main__":
    target = Path(__file__).with_name("notes.scene.json")
    scene = record()
    scene.save(target)
    print(f"wrote {target}: {scene!r}")
