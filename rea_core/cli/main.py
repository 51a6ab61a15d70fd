"""The ``rea`` command line. Only assembles commands; each lives in its own module.

The library's commands are added here; the app's (``rea app``) and the annotation studio's
(``rea annotations``, ``rea db``, ``rea train recognizer``) live with them and join through the
``rea_studio.commands`` entry point, so nothing in ``rea_core`` imports ``app`` or ``annotations``.

Example:
    rea app                           # the Gradio app on http://localhost:7860
    rea chat                          # REA and vanilla side by side in the terminal
    rea recognize "From now on, answer in lowercase."
    rea replay examples/conversations.jsonl --strategy rea --json
"""

from __future__ import annotations

from importlib.metadata import entry_points

import typer

from . import (
    compression_cmd,  # noqa: F401  (adds its commands to the data, train and eval groups)
    conversation,
    evaluate,
    train,
)

COMMAND_PLUGINS = "rea_studio.commands"  # entry-point group: callables taking the command groups

app = typer.Typer(
    name="rea",
    help="REA Studio: Role-aware Heuristic Episodic Attention for conversational LLMs.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
app.command()(conversation.chat)
app.command()(conversation.recognize)
app.command()(conversation.replay)
app.add_typer(evaluate.eval_app, name="eval")
app.add_typer(evaluate.data_app, name="data")
app.add_typer(train.app, name="train")
for plugin in entry_points(group=COMMAND_PLUGINS):
    plugin.load()({"root": app, "train": train.app, "eval": evaluate.eval_app, "data": evaluate.data_app})


def main() -> None:
    app()


if __name__ == "__main__":
    main()
