"""The ``rea`` command line. Only assembles commands; each lives in its own module.

Example:
    rea app                           # the Gradio app on http://localhost:7860
    rea chat                          # REA and vanilla side by side in the terminal
    rea recognize "From now on, answer in lowercase."
    rea replay examples/conversations.jsonl --strategy rea --json
"""

from __future__ import annotations

import typer

from . import annotations_cmd, conversation, db, evaluate, serve, train
from . import compression_cmd  # noqa: F401  (adds its commands to the data, train and eval groups)

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
app.command(name="app")(serve.serve)
app.add_typer(db.app, name="db")
app.add_typer(evaluate.eval_app, name="eval")
app.add_typer(evaluate.data_app, name="data")
app.add_typer(annotations_cmd.app, name="annotations")
app.add_typer(train.app, name="train")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
