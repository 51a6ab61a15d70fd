"""``rea chat``, ``rea recognize`` and ``rea replay``: talk to strategies, classify inputs, replay files."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import load_pipeline, quiet_libraries, reported_errors, settings_from_options, split_names
from .options import (
    AdapterOpt,
    ContextWindowOpt,
    EmbedderOpt,
    LimitOpt,
    MaxNewTokensOpt,
    ModelOpt,
    NoHCROpt,
    NoIMOpt,
    OutputRulesOpt,
    QueryRewriteOpt,
    RecentCompressedOpt,
    RecentRawOpt,
    RecentRawTokensOpt,
    RecognizerModelOpt,
    RulesOnlyOpt,
    Stage2Opt,
    TauHighOpt,
    TauLowOpt,
    TokenizerOpt,
)

CHAT_HELP = (
    "commands: /im (show Instructional Memory), /new (new session: "
    "COMEDY and SeCom consolidate memory), /save [FILE], /reset, /quit"
)
DEFAULT_SAVE = "rea-chat.json"


def _strategy_names(value: str) -> list[str]:
    from ..methods.registry import get_strategy

    names = split_names(value)
    for name in names:
        get_strategy(name)  # UnknownStrategyError lists the valid names
    return names


def _stats_line(result) -> str:
    from ..methods.base import stats_text, turn_summary

    return stats_text(turn_summary(result))


def chat(
    strategy: Annotated[
        str, typer.Option("--strategy", "-s", help="Comma-separated strategies; each message goes to every one.")
    ] = "rea,vanilla",
    model: ModelOpt = None,
    adapter: AdapterOpt = None,
    embedder: EmbedderOpt = None,
    tau_low: TauLowOpt = None,
    tau_high: TauHighOpt = None,
    max_new_tokens: MaxNewTokensOpt = None,
    context_window: ContextWindowOpt = None,
    recognizer_model: RecognizerModelOpt = None,
    load: Annotated[
        Optional[Path],
        typer.Option(
            "--load", help="Resume from a file written by /save or the app's Save (or an older /save folder)."
        ),
    ] = None,
    tokenizer: TokenizerOpt = None,
    kv_reuse: Annotated[
        Optional[bool],
        typer.Option(
            "--kv-reuse/--no-kv-reuse",
            show_default=False,
            help="Reuse each conversation's KV prefix between turns "
            "(in-process models) [env REA_KV_REUSE, default on].",
        ),
    ] = None,
    recent_raw: RecentRawOpt = None,
    recent_raw_tokens: RecentRawTokensOpt = None,
    recent_compressed: RecentCompressedOpt = None,
    output_rules: OutputRulesOpt = None,
    query_rewrite: QueryRewriteOpt = None,
) -> None:
    """Chat interactively; by default REA and vanilla answer side by side, replies printed as they are decoded.

    Example: rea chat --strategy rea,vanilla --tau-low 0.4
    """
    from ..errors import InputError, REAError
    from ..loading import build_from_settings
    from ..session import load_sessions, save_sessions
    from ..timestamps import now_time

    with reported_errors():
        names = _strategy_names(strategy)
        settings = settings_from_options(
            tau_low=tau_low,
            tau_high=tau_high,
            max_new_tokens=max_new_tokens,
            kv_reuse=kv_reuse,
            recent_raw=recent_raw,
            recent_raw_tokens=recent_raw_tokens,
            recent_compressed=recent_compressed,
            output_rules=output_rules,
            query_rewrite=query_rewrite,
            model=model,
            adapter=adapter,
            embedder=embedder,
            recognizer_model=recognizer_model,
            tokenizer=tokenizer,
        )
        resumed = _resumed(load_sessions(load), names, load) if load else {}  # a bad file fails before any model loads
        models = load_pipeline(settings, context_window)
        strategies = {n: build_from_settings(n, models, settings, served=True) for n in names}
        for n, session in resumed.items():  # SeCom's segments, COMEDY's memories: refused now, not at every turn
            strategies[n].check_memory(session)
        sessions = {n: resumed[n] if n in resumed else s.new_session() for n, s in strategies.items()}
        typer.echo(f"chatting with {', '.join(names)} on {models.generator.name}. {CHAT_HELP}")
        while True:
            try:
                text = input("you> ")
            except EOFError:
                typer.echo("")
                return
            command, _, arg = text.strip().partition(" ")
            if command == "/quit":
                return
            if command == "/reset":
                sessions = {n: s.new_session() for n, s in strategies.items()}
                typer.echo("conversation reset")
                continue
            if command == "/new":
                for n, strat in strategies.items():
                    note = strat.end_sitting(sessions[n])
                    typer.echo(f"[{n}] {note or 'no session memory to consolidate'}")
                continue
            if command == "/im":
                for n, s in sessions.items():
                    typer.echo(f"[{n}] Instructional Memory: {s.instructions.texts() or '(empty)'}")
                continue
            if command == "/save":
                path = Path(arg or DEFAULT_SAVE)
                try:
                    save_sessions(path, [(strategies[n], sessions[n]) for n in names])
                except OSError as exc:
                    typer.secho(f"error: not saved: {exc}", err=True, fg=typer.colors.RED)
                    continue
                typer.echo(f"saved to {path}")
                continue
            sent = now_time()  # the clock when the message was sent: one time for every strategy
            for n, strat in strategies.items():
                started = False
                try:
                    for item in strat.respond_stream(sessions[n], text, time=sent):
                        if isinstance(item, str):  # printed as it is decoded
                            if not started:
                                typer.secho(f"[{n}] ", fg=typer.colors.CYAN, nl=False, bold=True)
                                started = True
                            typer.echo(item, nl=False)
                            sys.stdout.flush()
                        else:
                            result = item
                except InputError as exc:
                    typer.secho(f"error: {exc}", err=True, fg=typer.colors.RED)
                    break
                except REAError as exc:  # the turn failed; the conversation is unchanged
                    if started:
                        typer.echo("")
                    typer.secho(f"error: [{n}] {exc}", err=True, fg=typer.colors.RED)
                    continue
                if not started:
                    typer.secho(f"[{n}] ", fg=typer.colors.CYAN, nl=False, bold=True)
                    typer.echo(result.reply, nl=False)
                typer.echo("")
                typer.secho(f"      {_stats_line(result)}", dim=True)
                strat.read_ahead(sessions[n])  # the next prompt's opening, while the user reads and types


def _resumed(saved: list, names: list[str], where: Path) -> dict:
    """The saved session of each chat strategy, matched by strategy name in saved order."""
    from ..errors import DataFormatError

    pool, out = list(saved), {}
    for n in names:
        found = next((s for s in pool if s.strategy == n), None)
        if found is None:
            held = ", ".join(s.strategy for s in saved)
            raise DataFormatError(
                f"{where}: no saved {n!r} session (it holds: {held}); choose its strategies with --strategy"
            )
        pool.remove(found)
        out[n] = found
    return out


def recognize(
    text: Annotated[str, typer.Argument(help="The user input to classify.")],
    model: ModelOpt = None,
    rules_only: RulesOnlyOpt = False,
    stage2: Stage2Opt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Is TEXT a global instruction? Shows the label, score and the stage that decided.

    Example: rea recognize "From now on, answer in lowercase."
    """
    from ..recognizer import InstructionRecognizer, build_recognizer, rule_stage
    from ..runtime import DEFAULT_MAX_MESSAGE_CHARS
    from ..text import validate_message

    with reported_errors():
        validate_message(text, DEFAULT_MAX_MESSAGE_CHARS)
        settings = settings_from_options(model=model, recognizer_stage2=stage2)
        stage2 = settings.rea.recognizer_stage2
        recognizer = InstructionRecognizer(None)
        if not rules_only and rule_stage(text)[0] is None:  # models are loaded only when stage 2 must decide
            quiet_libraries()
            if stage2 == "llm":
                from ..backends import load_generator

                recognizer = build_recognizer(
                    load_generator(settings.models.model, cache_dir=settings.models.cache_dir), None, "llm"
                )
            else:
                from ..backends import load_embedder

                recognizer = build_recognizer(None, load_embedder("packaged"), stage2)
        result = recognizer.recognize(text)
        if as_json:
            typer.echo(json.dumps(result.to_dict()))
        else:
            typer.echo(f"{result.label}  score={result.score:.3f}  stage={result.stage}")
            for cue in result.cues:
                typer.echo(f"  cue: {cue}")


def replay(
    file: Annotated[
        Path, typer.Argument(help='Conversation JSONL: {"id", "turns": [{"user", "assistant"?}]} per line.')
    ],
    strategy: Annotated[str, typer.Option("--strategy", "-s", help="Strategy to replay with.")] = "rea",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per turn on stdout.")] = False,
    regenerate: Annotated[
        bool, typer.Option("--regenerate", help="Generate every reply, even where the file gives one.")
    ] = False,
    limit: LimitOpt = None,
    model: ModelOpt = None,
    embedder: EmbedderOpt = None,
    tau_low: TauLowOpt = None,
    tau_high: TauHighOpt = None,
    max_new_tokens: MaxNewTokensOpt = None,
    context_window: ContextWindowOpt = None,
    no_im: NoIMOpt = False,
    no_hcr: NoHCROpt = False,
    recognizer_model: RecognizerModelOpt = None,
    recent_raw: RecentRawOpt = None,
    recent_raw_tokens: RecentRawTokensOpt = None,
    recent_compressed: RecentCompressedOpt = None,
    output_rules: OutputRulesOpt = None,
    query_rewrite: QueryRewriteOpt = None,
) -> None:
    """Replay a conversation file through a strategy; given assistant replies are stored, not generated.

    Example: rea replay examples/conversations.jsonl --strategy rea --json
    """
    from ..conversations import load_conversations
    from ..errors import REAError
    from ..loading import build_from_settings

    with reported_errors():
        names = _strategy_names(strategy)
        if len(names) != 1:  # checked here, not after the models have loaded
            raise REAError(f"replay takes one strategy; got {len(names)} ({strategy!r}). Run it once per strategy.")
        if limit is not None and limit < 1:
            raise REAError(f"--limit must be at least 1; got {limit}")
        settings = settings_from_options(
            tau_low=tau_low,
            tau_high=tau_high,
            max_new_tokens=max_new_tokens,
            use_im=not no_im,
            use_hcr=not no_hcr,
            recent_raw=recent_raw,
            recent_raw_tokens=recent_raw_tokens,
            recent_compressed=recent_compressed,
            output_rules=output_rules,
            query_rewrite=query_rewrite,
            model=model,
            embedder=embedder,
            recognizer_model=recognizer_model,
        )
        conversations = load_conversations(
            file, max_chars=settings.runtime.max_message_chars, max_turns=settings.limits.max_turns
        )[:limit]  # validated before any model call
        models = load_pipeline(settings, context_window)
        strat = build_from_settings(names[0], models, settings)
        for conv in conversations:
            session = strat.new_session()
            for turn in conv.turns:
                given = None if regenerate else turn.assistant
                result = strat.respond(session, turn.user, reply=given, time=turn.time)
                record = {
                    "conversation": conv.id,
                    "turn": result.turn,
                    **({"time": stored} if (stored := session.episodes.exchanges[-1].time) else {}),  # as kept
                    "instructions": session.instructions.texts(),
                    "scores": result.scores,
                    "decisions": [d.resolution.value for d in result.decisions],
                    "prompt_tokens": result.prompt_tokens,
                    "truncated_tokens": result.truncated_tokens,
                    "generated": result.generated,
                    "reply": result.reply,
                    "latency_s": round(result.timings.total_s, 4),
                }
                if as_json:
                    typer.echo(json.dumps(record, ensure_ascii=False))
                else:
                    typer.echo(f"{conv.id} turn {result.turn}: {_stats_line(result)}")
                    typer.echo(f"  user: {turn.user}")
                    typer.echo(f"  {'reply' if result.generated else 'given'}: {result.reply}")
