"""Plotly figures of the project's measured results: the ``results.json`` that ``rea eval adherence``
(and ``ablations``), ``rea eval latency`` and ``rea eval retrieval`` write into their ``--out`` folder.

Pure: a decoded results.json in, a ``ResultsView`` (plain title and summary, scale, reproducing
command, each figure's heading, figures) out. Everything a stakeholder reads (headings, legends, axes) is
in plain words: the
technical arm and policy names of ``rea eval`` are mapped in ``PLAIN_NAMES``, kept for the hover and
the researchers' note under each run. The file is checked first; anything else raises
``ResultsFormatError`` with a message fit to show in the page (plain text, escaped by whoever renders
it). Every text taken from the file is escaped once for plotly's own markup, so a name like ``<b>``
shows as typed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import plotly.graph_objects as go

from app.views.charts import add_note, wrapped
from rea_core.errors import DataFormatError
from rea_core.evals.retrieval import BASELINE_K

# ``rea eval adherence`` names its task by its report title; ``rea eval ablations`` passes its own.
ADHERENCE_TASKS = {"Instruction adherence": "adherence", "Ablations": "ablations"}
DRAWN = "adherence, ablations, latency and retrieval"
MAX_SERIES = 24  # strategies or policies in one file; more would not read as a chart
MAX_POINTS = 20_000  # per-turn records in one latency file
SMALL = {"adherence": 100, "latency": 60, "retrieval": 100}  # fewer probes / turns / queries: a small run
COLORS = {"rea": "#7c3aed", "vanilla": "#9ca3af", "keep-all": "#9ca3af"}
PALETTE = ("#0d9488", "#f59e0b", "#2563eb", "#db2777", "#65a30d", "#dc2626", "#0891b2", "#a16207")
LEGEND_ROW_PX = 22

# Every strategy, ablation arm and retrieval policy ``rea eval`` writes, as the charts name it; a name
# not here (a new arm, a file from elsewhere) is shown as written.
PLAIN_NAMES: dict[str, str] = {
    # strategies (rea eval adherence, latency)
    "rea": "REA",
    "vanilla": "Whole chat (vanilla)",
    "comedy": "COMEDY (running summary)",
    "secom": "SeCom (topic segments)",
    # retrieval policies (rea eval retrieval)
    "rea-first-release": "REA, first release",
    "rea-minilm": "REA, scoring reply chunks",
    "rea-exchange": "REA, scoring whole exchanges",
    "rea-sentence": "REA, scoring sentences (paper)",
    "rea-hybrid-plain": "REA by score alone",
    "rea-rewrite": "REA, question rewritten first",
    "bm25": f"Keyword search, top {BASELINE_K}",
    "dense": f"Meaning search, top {BASELINE_K}",
    "recency": f"Last {BASELINE_K} turns only",
    "keep-all": "Whole chat kept",
    # ablation arms (rea eval ablations)
    "em-only": "Memory only, all shortened",
    "em-hcr": "REA without instruction memory",
    "em-hcr-im": "Full REA",
    "oracle-im": "REA told the true instructions",
    "im-withheld": "REA missing the instructions",
    "im-false-positive": "REA with one false instruction",
    "all-raw": "Every past turn sent whole",
    "all-omitted": "Every past reply left out",
    "rea-text-compressed": "REA, short replies as text",
    "rea-latent-scorer": "REA, scoring with the codec",
    "rea-latest-only": "REA, latest turn only whole",
    "rea-im-query": "REA, instructions by the question",
    "vanilla-cached": "Whole chat, server cache",
    "rea-cached": "REA, server cache",
    "rea-chronological": "REA in turn order",
    "rea-chronological-cached": "REA in turn order, server cache",
}
# The data sets ``rea eval retrieval`` is run on, in plain words (the file name stays in the command).
DATASETS: dict[str, str] = {
    "test-long.jsonl": "held-out long chats",
    "test-short.jsonl": "held-out short chats",
    "dev-long.jsonl": "long tuning chats",
    "dev-short.jsonl": "short tuning chats",
    "backrefs.jsonl": "chats that refer back",
}


@dataclass(frozen=True)
class Heading:
    """A chart's title and the lines under it (how big the run was), plain text. The page sets them in
    HTML above the chart, where they wrap at any width; plotly's own titles do not wrap, and a
    multi-line one overlaps its plot or is cut at its top."""

    title: str
    notes: tuple[str, ...]


class ResultsFormatError(DataFormatError):
    """A results.json the Results tab cannot draw; the message says what is wrong, without any path."""


@dataclass(frozen=True)
class ResultsView:
    """One evaluation run as the page shows it: plain-text labels and ready figures."""

    task: str  # "adherence", "ablations", "latency" or "retrieval"
    title: str  # plain words: what the run asks
    summary: str  # plain words: what was done and what to look for
    names: tuple[tuple[str, str], ...]  # (name in the command, plain name) of each series, for researchers
    scale: str  # how big the run was, e.g. "small run: 3 conversations, 10 probes per strategy"
    command: str  # the command that reproduces it
    recorded: str  # when and how it was run, from the file's "provenance" (empty for an uploaded file)
    figures: tuple[go.Figure, ...]
    headings: tuple[Heading, ...]  # one per figure, in the same order


def results_view(data: object) -> ResultsView:
    """Check a decoded results.json and build its figures; raises ``ResultsFormatError``."""
    if not isinstance(data, dict):
        raise ResultsFormatError(f"expected a JSON object, found {_kind(data)}")
    task = data.get("task")
    if task is None:
        raise ResultsFormatError('no "task" key: this is not a results.json written by rea eval')
    if task in ADHERENCE_TASKS:
        return _adherence(data, ADHERENCE_TASKS[task])
    if task == "latency":
        return _latency(data)
    if task == "retrieval":
        return _retrieval(data)
    shown = _clip(task) if isinstance(task, str) else _kind(task)
    raise ResultsFormatError(f'results of task "{shown}" are not drawn here; the Results tab draws {DRAWN} results')


# -- checks ----------------------------------------------------------------------------------------


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}.get(
        type(value), "a number"
    )


def _clip(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _number(value: object, where: str, *, lo: float | None = None, hi: float | None = None) -> float:
    ok = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (lo is not None and value < lo) or (hi is not None and value > hi):
        bounds = f" between {lo:g} and {hi:g}" if lo is not None and hi is not None else ""
        bounds = bounds or (f" of at least {lo:g}" if lo is not None else "")
        raise ResultsFormatError(f"{where} must be a number{bounds}, found {_kind(value) if not ok else value}")
    return float(value)


def _optional_number(value: object, where: str, **bounds) -> float | None:
    return None if value is None else _number(value, where, **bounds)


def _object(value: object, where: str) -> dict:
    if not isinstance(value, dict):
        raise ResultsFormatError(f"{where} must be an object, found {_kind(value)}")
    return value


def _series(data: dict, key: str, what: str) -> dict[str, dict]:
    """The per-strategy (or per-policy) objects under ``key``: at least one, at most ``MAX_SERIES``."""
    found = _object(data.get(key), f'"{key}"')
    if not found:
        raise ResultsFormatError(f'"{key}" holds no {what}')
    if len(found) > MAX_SERIES:
        raise ResultsFormatError(f'"{key}" holds {len(found)} {what}; at most {MAX_SERIES} are drawn')
    return {str(name): _object(m, f'{what[:-1]} "{_clip(str(name))}"') for name, m in found.items()}


def _count(data: dict, key: str) -> int:
    return int(_number(data.get(key), f'"{key}"', lo=0))


def _provenance(data: dict) -> dict[str, str]:
    """The optional "provenance" object of a shipped file: command, date, scale (all text)."""
    found = data.get("provenance")
    if found is None:
        return {}
    found = _object(found, '"provenance"')
    for key in ("command", "date", "scale", "note"):
        if key in found and not isinstance(found[key], str):
            raise ResultsFormatError(f'"provenance" {key} must be text, found {_kind(found[key])}')
    return found


# -- figures ---------------------------------------------------------------------------------------


def _plain(text: object) -> str:
    """Text from the file as plotly shows it: its tags are markup, so ``<`` and ``&`` are escaped once."""
    return escape(str(text), quote=False)


def plain_name(name: str) -> str:
    """A strategy, arm or policy as a stakeholder reads it (``PLAIN_NAMES``); unknown names as written."""
    return PLAIN_NAMES.get(name, name)


def _color(name: str, index: int) -> str:
    return COLORS.get(name, PALETTE[index % len(PALETTE)])


def _line(name: str, index: int) -> dict:
    """REA's series thin, the others wide and pale beneath them, so equal results stay visible."""
    return dict(color=_color(name, index), width=3 if name.startswith("rea") else 6)


def _rea_last(items):
    """Series in drawing order: REA's on top of the ones they are compared with."""
    return sorted(enumerate(items), key=lambda kv: kv[1][0].startswith("rea"))


def _series_names(names) -> tuple[tuple[str, str], ...]:
    return tuple((n, plain_name(n)) for n in names)


def _layout(fig: go.Figure, title: str, scale: str | tuple[str, ...], *, legend_rows: int, **axes) -> Heading:
    """The figure's axes and its legend, one entry a row at its foot below the axis titles whatever the
    width; returns its heading (title, then the run's scale), which the page sets above it."""
    bottom = 62 + LEGEND_ROW_PX * legend_rows
    fig.update_layout(
        height=270 + bottom,
        margin=dict(t=14, b=bottom, l=56, r=16),
        showlegend=legend_rows > 0,
        legend=dict(orientation="v", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"),
        hoverlabel=dict(namelength=-1),
        modebar=dict(orientation="v"),
        **axes,
    )
    fig.update_xaxes(automargin=False)
    fig.update_yaxes(automargin=True)
    return Heading(title, (scale,) if isinstance(scale, str) else tuple(scale))


def _has_points(fig: go.Figure) -> bool:
    return any(t.y is not None and len(t.y) for t in fig.data)


def _empty_state(fig: go.Figure, text: str) -> go.Figure:
    """A chart with nothing to draw says, where its lines would be, what appears there and when."""
    return fig if _has_points(fig) else add_note(fig, text, 36)


def _n(count: int, noun: str, plural: str = "") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {plural or noun + 's'}"


def _scale(task: str, counts: str, size: int) -> str:
    """The chart subtitle: how big the run was, flagged as small below ``SMALL``."""
    return ("small run: " if size < SMALL[task] else "") + counts


def _with_model(scale: str, model: object) -> str:
    return scale + (f" · {_clip(str(model), 48)}" if model else "")


def _view(task, title, summary, names, data, derived_scale, derived_command, figures, headings) -> ResultsView:
    prov = _provenance(data)
    recorded = " · ".join(p for p in (prov.get("date", ""), prov.get("note", "")) if p)
    return ResultsView(
        task=task,
        title=title,
        summary=summary,
        names=_series_names(names),
        scale=prov.get("scale") or derived_scale,
        command=prov.get("command") or derived_command,
        recorded=recorded,
        figures=tuple(figures),
        headings=tuple(headings),
    )


def _hover(name: str) -> str:
    """A hover's closing box: the plain name, and the name the command uses beneath it."""
    tech = _plain(name)
    return f"<extra>%{{fullData.name}}{'' if plain_name(name) == name else '<br>(' + tech + ')'}</extra>"


def _adherence(data: dict, task: str) -> ResultsView:
    arms = _series(data, "arms", "strategies")
    conversations = _count(data, "conversations")
    probes = 0
    for name, m in arms.items():
        where = f'strategy "{_clip(name)}"'
        probes = max(probes, int(_number(m.get("probes"), f"{where} probes", lo=0)))
        if m.get("probes"):
            _number(m.get("iar"), f"{where} iar", lo=0, hi=1)
            _optional_number(m.get("iar_depth_10_plus"), f"{where} iar_depth_10_plus", lo=0, hi=1)
            _optional_number(m.get("mean_prompt_tokens"), f"{where} mean_prompt_tokens", lo=0)
            for bucket, share in _object(m.get("by_depth"), f"{where} by_depth").items():
                _number(share, f"{where} by_depth {_clip(str(bucket), 20)}", lo=0, hi=1)
    if not probes:
        raise ResultsFormatError("no strategy has any probe turn: nothing to draw")
    counts = f"{_n(conversations, 'chat')}, {_n(probes, 'checked reply', 'checked replies')} each"
    scale = _scale("adherence", counts, probes)
    names = ",".join(arms)
    command = (
        f"rea eval ablations --data <suite.jsonl> --arms {names} --out <folder>"
        if task == "ablations"
        else f"rea eval adherence --data <suite.jsonl> --strategies {names} --out <folder>"
    )
    drawn = [(n, m) for n, m in arms.items() if m.get("probes")]

    depth = go.Figure()
    for i, (name, m) in _rea_last(drawn):
        by_depth = m["by_depth"]
        depth.add_scatter(
            x=[_plain(b) for b in by_depth],
            y=list(by_depth.values()),
            mode="lines+markers",
            name=_plain(plain_name(name)),
            line=_line(name, i),
            marker_size=8,
            hovertemplate="%{x} turns after it was given<br>followed %{y:.0%}" + _hover(name),
        )
    depth_head = _layout(
        depth,
        "Instructions followed, by how long ago they were given",
        scale,
        legend_rows=len(drawn),
        xaxis=dict(title="turns since the instruction", type="category"),
        yaxis=dict(title="share followed", range=[0, 1.05], tickformat=".0%"),
    )
    _empty_state(
        depth,
        "A line per strategy appears here when the run records how many turns after the instruction "
        "each reply was checked.",
    )
    iar = go.Figure()
    for key, label, color in (
        ("iar", "all checked replies", "#7c3aed"),
        ("iar_depth_10_plus", "10+ turns later", "#c4b5fd"),
    ):
        iar.add_bar(
            x=[_plain(plain_name(n)) for n, _ in drawn],
            y=[m.get(key) for _, m in drawn],
            name=label,
            marker_color=color,
            customdata=[m.get("mean_prompt_tokens") or 0 for _, m in drawn],
            hovertemplate="%{x}: %{y:.0%} of checked replies follow every instruction"
            "<br>mean prompt %{customdata:.0f} tokens<extra>" + label + "</extra>",
        )
    iar.update_xaxes(
        tickvals=[_plain(plain_name(n)) for n, _ in drawn], ticktext=[wrapped(plain_name(n), 14) for n, _ in drawn]
    )
    iar_head = _layout(
        iar,
        adherence_verdict(arms),
        (adherence_scores(arms), scale),
        legend_rows=2,
        barmode="group",
        yaxis=dict(title="followed every instruction", range=[0, 1.05], tickformat=".0%"),
    )
    _empty_state(iar, "A bar per strategy appears here once a strategy has checked replies.")
    if task == "adherence":
        title = "Following an instruction many turns later"
        summary = (
            "Each chat gives the model an instruction (such as “answer in lowercase”) and checks later replies "
            "against it. REA keeps standing instructions in their own memory; the whole chat (vanilla) resends "
            "everything and lets them drift out of reach."
        )
    else:
        title = "What each part of REA adds to following instructions"
        summary = (
            "The same instruction check, with one part of REA changed or switched off in each variant: a "
            "variant that follows fewer instructions shows what that part is for."
        )
    caption = _with_model(scale, data.get("model"))
    return _view(task, title, summary, arms, data, caption, command, [depth, iar], [depth_head, iar_head])


def adherence_verdict(arms: dict) -> str:
    """The adherence bars' title: whether REA follows more instructions than the whole chat (vanilla) in
    this run, in plain words (a tie or a loss is said as plainly as a win); a plain heading when the run
    has not both. ``adherence_scores`` gives the numbers beneath it."""
    rea, vanilla = arms.get("rea") or {}, arms.get("vanilla") or {}
    if not rea.get("probes") or not vanilla.get("probes"):
        return "Replies that follow every instruction"
    a, b = float(rea["iar"]), float(vanilla["iar"])
    if a > b:
        return "REA follows more instructions than the whole chat"
    if a == b:
        return "REA and the whole chat follow as many instructions"
    return "REA does not beat the whole chat here"


def adherence_scores(arms: dict) -> str:
    """The numbers under the verdict: replies that follow every instruction, out of 10, per strategy."""
    drawn = [(n, m) for n, m in arms.items() if m.get("probes")]
    return "out of 10 replies, following every instruction: " + ", ".join(
        f"{plain_name(n)} {10 * float(m['iar']):.1f}" for n, m in drawn
    )


def _latency(data: dict) -> ResultsView:
    turns, every, conversations = _count(data, "turns"), _count(data, "every"), _count(data, "conversations")
    per_turn = _object(data.get("per_turn"), '"per_turn"')
    if not per_turn or len(per_turn) > MAX_SERIES:
        raise ResultsFormatError(f'"per_turn" must hold 1 to {MAX_SERIES} strategies, found {len(per_turn)}')
    records: dict[str, list[dict]] = {}
    for name, recs in per_turn.items():
        where = f'per_turn "{_clip(str(name))}"'
        if not isinstance(recs, list):
            raise ResultsFormatError(f"{where} must be a list of turns, found {_kind(recs)}")
        if len(recs) > MAX_POINTS:
            raise ResultsFormatError(f"{where} holds {len(recs)} turns; at most {MAX_POINTS} are drawn")
        for k, r in enumerate(recs):
            r = _object(r, f"{where} turn {k}")
            _number(r.get("turn"), f"{where} turn {k}: turn", lo=0)
            _number(r.get("prompt_tokens"), f"{where} turn {k}: prompt_tokens", lo=0)
            _number(r.get("latency_s"), f"{where} turn {k}: latency_s", lo=0)
            if not isinstance(r.get("generated"), bool):
                raise ResultsFormatError(f"{where} turn {k}: generated must be true or false")
        records[str(name)] = recs
    ratio = _optional_number(data.get("vanilla_over_rea_last_quarter"), '"vanilla_over_rea_last_quarter"', lo=0)
    counts = f"{_n(conversations, 'chat')} of {turns} turns, " + (
        f"a reply generated every {every}th turn" if every > 1 else "every reply generated"
    )
    scale = _scale("latency", counts, conversations * turns)
    command = (
        f"rea eval latency --turns {turns} --every {every} --n {conversations} "
        f"--strategies {','.join(per_turn)} --out <folder>"
    )
    if isinstance(data.get("max_new_tokens"), int) and data["max_new_tokens"] != 64:
        command = command.replace(" --out", f" --max-new-tokens {data['max_new_tokens']} --out")

    tokens, seconds = go.Figure(), go.Figure()
    for i, (name, recs) in _rea_last(records.items()):
        shown, line = _plain(plain_name(name)), _line(name, i)
        tokens.add_scatter(
            x=[r["turn"] for r in recs],
            y=[r["prompt_tokens"] for r in recs],
            mode="lines",
            name=shown,
            line=line,
            hovertemplate="turn %{x}: %{y} tokens read" + _hover(name),
        )
        gen = [r for r in recs if r["generated"]]
        seconds.add_scatter(
            x=[r["turn"] for r in gen],
            y=[r["latency_s"] for r in gen],
            mode="lines+markers",
            name=shown,
            line=line,
            hovertemplate="turn %{x}: %{y:.2f} s" + _hover(name),
        )
    tokens_head = _layout(
        tokens,
        "How much the model reads each turn",
        scale,
        legend_rows=len(records),
        xaxis=dict(title="turn"),
        yaxis=dict(title="prompt length (tokens)", rangemode="tozero"),
    )
    _empty_state(tokens, "A line per strategy appears here once the run records at least one turn.")
    slower = f"last quarter of the chat: the whole chat takes {ratio:.2f}× REA's time" if ratio else ""
    seconds_head = _layout(
        seconds,
        "Seconds to reply, turn by turn",
        (scale, slower) if slower else scale,
        legend_rows=len(records),
        xaxis=dict(title="turn"),
        yaxis=dict(title="seconds", rangemode="tozero"),
    )
    _empty_state(
        seconds,
        "Reply times appear here for the turns where a reply was generated; this run generated none "
        "(run it with a smaller --every than --turns).",
    )
    caption = _with_model(scale, data.get("model"))
    summary = (
        "One long chat replayed turn by turn. The whole chat (vanilla) sends all of its history every turn, "
        "so what the model reads, and the wait for each reply, keep growing; REA sends only what it keeps."
    )
    title = "Reply time as a chat grows long"
    figures, headings = [tokens, seconds], [tokens_head, seconds_head]
    return _view("latency", title, summary, records, data, caption, command, figures, headings)


def _retrieval(data: dict) -> ResultsView:
    policies = _series(data, "policies", "policies")
    queries, conversations = _count(data, "queries"), _count(data, "conversations")
    for name, m in policies.items():
        where = f'policy "{_clip(name)}"'
        for key in ("all_kept", "recall", "kept_share", "prompt_share"):
            _number(m.get(key), f"{where} {key}", lo=0, hi=1)
        sweep = m.get("sweep")
        if sweep is not None:
            sweep = _object(sweep, f"{where} sweep")
            lengths = set()
            for key in ("tau_low", "all_kept", "kept_share"):
                values = sweep.get(key)
                if not isinstance(values, list) or not values:
                    raise ResultsFormatError(f"{where} sweep {key} must be a non-empty list of numbers")
                for v in values:
                    _number(v, f"{where} sweep {key}", lo=0, hi=1)
                lengths.add(len(values))
            if len(lengths) > 1:
                raise ResultsFormatError(f"{where} sweep lists differ in length")
    dataset = data.get("dataset")
    dataset = _clip(dataset) if isinstance(dataset, str) else "?"
    data_file = dataset.removesuffix(" (jsonl)").removesuffix(" (locomo)")
    locomo = dataset.endswith(" (locomo)")
    scale = _scale("retrieval", f"{_n(conversations, 'chat')}, {_n(queries, 'follow-up')}", queries)
    fmt = " --format locomo" if locomo else ""
    command = f"rea eval retrieval --data <{data_file}>{fmt} --policies {','.join(policies)} --out <folder>"

    bars = go.Figure()
    measures = (
        ("all_kept", "follow-ups with every needed turn kept", "#7c3aed"),
        ("kept_share", "share of earlier turns kept", "#f59e0b"),
        ("prompt_share", "share of the chat's text sent", "#9ca3af"),
    )
    shown = [_plain(plain_name(n)) for n in policies]
    for key, label, color in measures:
        bars.add_bar(
            x=shown,
            y=[m[key] for m in policies.values()],
            name=label,
            marker_color=color,
            hovertemplate="%{x}: %{y:.1%}<extra>" + label + "</extra>",
        )
    bars.update_xaxes(tickvals=shown, ticktext=[wrapped(plain_name(n), 12) for n in policies], tickangle=0)
    bars_head = _layout(
        bars,
        "Kept the turn the follow-up needed? At what cost?",
        scale,
        legend_rows=len(measures),
        barmode="group",
        yaxis=dict(range=[0, 1.05], tickformat=".0%"),
    )
    _empty_state(bars, "Three bars per memory policy appear here once the run holds a policy's results.")
    curve = go.Figure()
    swept = any(m.get("sweep") for m in policies.values())
    for i, (name, m) in enumerate(policies.items()):
        label, color = _plain(plain_name(name)), _color(name, i)
        if m.get("sweep"):
            s = m["sweep"]
            curve.add_scatter(
                x=s["kept_share"],
                y=s["all_kept"],
                mode="lines",
                name=label,
                legendgroup=str(i),
                line=dict(color=color, width=2),
                customdata=s["tau_low"],
                hovertemplate="omit threshold %{customdata:.2f}: kept %{x:.1%} of earlier turns, "
                "every needed turn kept for %{y:.1%}" + _hover(name),
            )
        curve.add_scatter(
            x=[m["kept_share"]],
            y=[m["all_kept"]],
            mode="markers",
            name=label,
            legendgroup=str(i),
            showlegend=not m.get("sweep"),  # one legend entry per policy: its line, or its point alone
            marker=dict(color=color, size=12, symbol="diamond", line=dict(color="#111", width=1)),
            hovertemplate="as run: kept %{x:.1%} of earlier turns, every needed turn kept for %{y:.1%}" + _hover(name),
        )
    key = "line: the omit threshold from 0 to 1 · ◆: as run" if swept else "◆: each as run (this file has no sweep)"
    curve_head = _layout(
        curve,
        "What happens as the omit threshold moves",
        (scale, key),
        legend_rows=len(policies),
        xaxis=dict(title="share of earlier turns kept", range=[0, 1.02], tickformat=".0%"),
        yaxis=dict(title="needed turns all kept", range=[0, 1.05], tickformat=".0%"),
    )
    _empty_state(
        curve, "A line per policy appears here once a run sweeps its omit threshold, and a ◆ for each as run."
    )
    caption = _with_model(scale, data.get("embedder"))
    where = "LoCoMo long conversations" if locomo else DATASETS.get(data_file, f"chats of {data_file}")
    summary = (
        "Each question needs something said many turns earlier (“what did you say about the plants?”). "
        "A good memory keeps the turn it needs and sends little else; keeping the whole chat finds it "
        "every time, at the cost of sending everything."
    )
    title = f"Finding the earlier turn a follow-up needs ({where})"
    figures, headings = [bars, curve], [bars_head, curve_head]
    return _view("retrieval", title, summary, policies, data, caption, command, figures, headings)
