"""Options shared by several ``rea`` commands, declared once."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

ModelOpt = Annotated[
    Optional[str],
    typer.Option(
        "--model",
        "-m",
        help="Generator: a Hugging Face model id, a local folder, 'packaged' (offline SmolLM2-135M-Instruct), "
        "or openai:<model id> (an OpenAI-compatible server at REA_OPENAI_BASE_URL) [env REA_MODEL].",
    ),
]
AdapterOpt = Annotated[
    Optional[str],
    typer.Option(
        "--adapter",
        help="Instruction-following LoRA merged into the generator: 'auto' (the one shipped for the packaged model), "
        "'none', or a folder from `rea train instruct` [env REA_ADAPTER, default auto].",
    ),
]
EmbedderOpt = Annotated[
    Optional[str],
    typer.Option(
        "--embedder",
        help="Sentence embedder for HCR: model id, folder, or 'packaged' (all-MiniLM-L6-v2) [env REA_EMBEDDER].",
    ),
]
RecognizerModelOpt = Annotated[
    Optional[str],
    typer.Option(
        "--recognizer-model",
        help="LLM for the recognizer's classifier stage (default: the generator) [env REA_RECOGNIZER_MODEL].",
    ),
]
TauLowOpt = Annotated[
    Optional[float],
    typer.Option(
        "--tau-low",
        help="HCR: below this score an exchange is omitted [env REA_TAU_LOW, default: calibrated for the scorer].",
    ),
]
TauHighOpt = Annotated[
    Optional[float],
    typer.Option(
        "--tau-high",
        help="HCR: at or above this score an exchange is raw [env REA_TAU_HIGH, default: calibrated for the scorer].",
    ),
]
RecentRawOpt = Annotated[
    Optional[int],
    typer.Option(
        "--recent-raw",
        help="Working memory: most latest exchanges kept raw, whatever "
        "their score; 0 turns the window off [env REA_RECENT_RAW].",
    ),
]
RecentRawTokensOpt = Annotated[
    Optional[int],
    typer.Option(
        "--recent-raw-tokens",
        help="Working memory: token budget of the raw window (the latest "
        "exchange is always in it) [env REA_RECENT_RAW_TOKENS].",
    ),
]
RecentCompressedOpt = Annotated[
    Optional[int],
    typer.Option(
        "--recent-compressed",
        help="Working memory: exchanges before the raw window kept at least compressed [env REA_RECENT_COMPRESSED].",
    ),
]
QueryRewriteOpt = Annotated[
    Optional[bool],
    typer.Option(
        "--query-rewrite/--no-query-rewrite",
        show_default=False,
        help="REA: rewrite each query as a standalone question with the generator before "
        "HCR scores (for capable generators) [env REA_QUERY_REWRITE, default off].",
    ),
]
OutputRulesOpt = Annotated[
    Optional[bool],
    typer.Option(
        "--output-rules/--no-output-rules",
        show_default=False,
        help="REA: keep Instructional Memory's checkable instructions (lowercase, capitals, no commas, exactly N "
        "bullet points) while decoding (in-process models) [env REA_OUTPUT_RULES, default on].",
    ),
]
MaxNewTokensOpt = Annotated[
    Optional[int],
    typer.Option("--max-new-tokens", help="Longest reply, in tokens [env REA_MAX_NEW_TOKENS, default 128]."),
]
ContextWindowOpt = Annotated[
    Optional[int],
    typer.Option("--context-window", help="Override the model's context window (tokens); vanilla truncates to it."),
]
TokenizerOpt = Annotated[
    Optional[str],
    typer.Option(
        "--tokenizer",
        help="With --model openai:<id>: a local tokenizer (folder, hub id or 'packaged') for exact token counts; "
        "without one, counts are estimated and the prompt total comes from the server's usage [env REA_TOKENIZER].",
    ),
]
LimitOpt = Annotated[Optional[int], typer.Option("--limit", help="Only the first N conversations (quick runs).")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Random seed (same seed, same output).")]
RulesOnlyOpt = Annotated[
    bool, typer.Option("--rules-only", help="Recognizer stage 1 (rules) only; no model is loaded.")
]
NoIMOpt = Annotated[bool, typer.Option("--no-im", help="Ablation: REA without Instructional Memory.")]
NoHCROpt = Annotated[bool, typer.Option("--no-hcr", help="Ablation: REA without HCR (every exchange compressed).")]

Stage2Opt = Annotated[
    Optional[str],
    typer.Option(
        "--stage2",
        help="Recognizer stage 2: 'trained' (shipped classifier) or 'llm' "
        "(few-shot on the model) [env REA_RECOGNIZER_STAGE2, default trained].",
    ),
]
ScorerOpt = Annotated[
    Optional[str],
    typer.Option("--scorer", help="HCR scorer of the REA arms and policies (hybrid, exchange, minilm, sentence)."),
]
OutOpt = Annotated[
    Path, typer.Option("--out", help="Output folder: records.jsonl, results.json, report.html. Re-running resumes.")
]
