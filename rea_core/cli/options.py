"""Options shared by several ``rea`` commands, declared once."""

from __future__ import annotations

import os
from typing import Annotated, Optional

import typer

ModelOpt = Annotated[
    str,
    typer.Option(
        "--model",
        "-m",
        envvar="REA_MODEL",
        help="Generator: a Hugging Face model id, a local folder, 'packaged' (offline SmolLM2-135M-Instruct), or openai:<model id> (an OpenAI-compatible server at REA_OPENAI_BASE_URL).",
    ),
]
EmbedderOpt = Annotated[
    str,
    typer.Option("--embedder", envvar="REA_EMBEDDER", help="Sentence embedder for HCR: model id, folder, or 'packaged' (all-MiniLM-L6-v2)."),
]
RecognizerModelOpt = Annotated[
    Optional[str],
    typer.Option("--recognizer-model", envvar="REA_RECOGNIZER_MODEL", help="LLM for the recognizer's classifier stage (default: the generator)."),
]
TauLowOpt = Annotated[Optional[float], typer.Option("--tau-low", help="HCR: below this score an exchange is omitted [env REA_TAU_LOW, default 0.5].")]
TauHighOpt = Annotated[Optional[float], typer.Option("--tau-high", help="HCR: at or above this score an exchange is raw [env REA_TAU_HIGH, default 0.7].")]
RecentRawOpt = Annotated[
    Optional[int], typer.Option("--recent-raw", help="Working memory: most latest exchanges kept raw, whatever their score; 0 turns the window off [env REA_RECENT_RAW].")
]
RecentRawTokensOpt = Annotated[
    Optional[int], typer.Option("--recent-raw-tokens", help="Working memory: token budget of the raw window (the latest exchange is always in it) [env REA_RECENT_RAW_TOKENS].")
]
RecentCompressedOpt = Annotated[
    Optional[int], typer.Option("--recent-compressed", help="Working memory: exchanges before the raw window kept at least compressed [env REA_RECENT_COMPRESSED].")
]
QueryRewriteOpt = Annotated[
    Optional[bool],
    typer.Option("--query-rewrite/--no-query-rewrite", show_default=False,
                 help="REA: rewrite each query as a standalone question with the generator before HCR scores (for capable generators) [env REA_QUERY_REWRITE, default off]."),
]
MaxNewTokensOpt = Annotated[int, typer.Option("--max-new-tokens", help="Longest reply, in tokens.")]
ContextWindowOpt = Annotated[
    Optional[int], typer.Option("--context-window", help="Override the model's context window (tokens); vanilla truncates to it.")
]
TokenizerOpt = Annotated[
    Optional[str],
    typer.Option("--tokenizer", envvar="REA_TOKENIZER", help="With --model openai:<id>: a local tokenizer (folder, hub id or 'packaged') for exact token counts; without one, counts are estimated and the prompt total comes from the server's usage."),
]
LimitOpt = Annotated[Optional[int], typer.Option("--limit", help="Only the first N conversations (quick runs).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed (same seed, same output).")]
RulesOnlyOpt = Annotated[bool, typer.Option("--rules-only", help="Recognizer stage 1 (rules) only; no model is loaded.")]
NoIMOpt = Annotated[bool, typer.Option("--no-im", help="Ablation: REA without Instructional Memory.")]
NoHCROpt = Annotated[bool, typer.Option("--no-hcr", help="Ablation: REA without HCR (every exchange compressed).")]

DEFAULT_MODEL = os.environ.get("REA_MODEL", "packaged")
DEFAULT_EMBEDDER = os.environ.get("REA_EMBEDDER", "packaged")
Stage2Opt = Annotated[
    str,
    typer.Option("--stage2", envvar="REA_RECOGNIZER_STAGE2", help="Recognizer stage 2: 'trained' (shipped classifier) or 'llm' (few-shot on the model)."),
]
