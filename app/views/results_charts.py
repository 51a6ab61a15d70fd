"""Plotly figures of the project's measured results: the ``results.json`` that ``rea eval adherence``
(and ``ablations``), ``rea eval latency`` and ``rea eval retrieval`` write into their ``--out`` folder.

Pure: a decoded results.json in, a ``ResultsView`` (title, scale, reproducing command, figures)
out. The file is checked first; anything else raises ``ResultsFormatError`` with a message fit to
show in the page (plain text, escaped by whoever renders it). Every text taken from the file is
escaped once for plotly's own markup, so a name like ``<b>`` shows as typed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

import plotly.graph_objects as go

from rea_core.errors import DataFormatError

# ``rea eval adherence`` names its task by its report title; ``rea eval ablations`` passes its own.
ADHERENCE_TASKS = {"Instruction adherence": "adherence", "Ablations": "ablations"}
DRAWN = "adherence, ablations, latency and retrieval"
MAX_SERIES = 24  # strategies or policies in one file; more would not read as a chart
MAX_POINTS = 20_000  # per-turn records in one latency file
SMALL = {"adherence": 100, "latency": 60, "retrieval": 100}  # fewer probes / turns / queries: a small run
COLORS = {"rea": "#7c3aed", "vanilla": "#9ca3af", "keep-all": "#9ca3af"}
PALETTE = ("#0d9488", "#f59e0b", "#2563eb", "#db2777", "#65a30d", "#dc2626", "#0891b2", "#a16207")


class ResultsFormatError(DataFormatError):
    """A results.json the Results tab cannot draw; the message says what is wrong, without any path."""


@dataclass(frozen=True)
class ResultsView:
    """One evaluation run as the page shows it: plain-text labels and ready figures."""

    task: str  # "adherence", "ablations", "latency" or "retrieval"
    title: str
    scale: str  # how big the run was, e.g. "small run: 3 conversations, 10 probes per strategy"
    command: str  # the command that reproduces it
    recorded: str  # when and how it was run, from the file's "provenance" (empty for an uploaded file)
    figures: tuple[go.Figure, ...]


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


def _color(name: str, index: int) -> str:
    return COLORS.get(name, PALETTE[index % len(PALETTE)])


def _line(name: str, index: int) -> dict:
    """REA's series thin, the others wide and pale beneath them, so equal results stay visible."""
    return dict(color=_color(name, index), width=3 if name.startswith("rea") else 6)


def _rea_last(items):
    """Series in drawing order: REA's on top of the ones they are compared with."""
    return sorted(enumerate(items), key=lambda kv: kv[1][0].startswith("rea"))


def _layout(fig: go.Figure, title: str, scale: str | tuple[str, ...], **axes) -> go.Figure:
    """Title, then the run's scale (one line per item) as the subtitle, all text escaped."""
    lines = "<br>".join(_plain(line) for line in ((scale,) if isinstance(scale, str) else scale))
    fig.update_layout(
        title=dict(text=f"{_plain(title)}<br><sup>{lines}</sup>", x=0.01, xanchor="left", y=0.96),
        height=380,
        margin=dict(t=80, b=50, l=60, r=20),
        legend=dict(orientation="h", yanchor="top", y=-0.18, x=0),
        hoverlabel=dict(namelength=-1),
        modebar=dict(orientation="v"),  # beside the plot, not over the left-aligned title
        **axes,
    )
    return fig


def _n(count: int, noun: str, plural: str = "") -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {plural or noun + 's'}"


def _scale(task: str, counts: str, size: int) -> str:
    """The chart subtitle: how big the run was, flagged as small below ``SMALL``."""
    return ("small run: " if size < SMALL[task] else "") + counts


def _with_model(scale: str, model: object) -> str:
    return scale + (f" · {_clip(str(model), 48)}" if model else "")


def _view(task, title, data, derived_scale, derived_command, figures) -> ResultsView:
    prov = _provenance(data)
    recorded = " · ".join(p for p in (prov.get("date", ""), prov.get("note", "")) if p)
    return ResultsView(
        task=task,
        title=title,
        scale=prov.get("scale") or derived_scale,
        command=prov.get("command") or derived_command,
        recorded=recorded,
        figures=tuple(figures),
    )


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
    scale = _scale("adherence", f"{_n(conversations, 'conversation')}, {_n(probes, 'probe')} per strategy", probes)
    names = ",".join(arms)
    command = (
        f"rea eval ablations --data <suite.jsonl> --arms {names} --out <folder>"
        if task == "ablations"
        else f"rea eval adherence --data <suite.jsonl> --strategies {names} --out <folder>"
    )

    depth = go.Figure()
    for i, (name, m) in _rea_last(arms.items()):
        if m.get("probes"):
            by_depth = m["by_depth"]
            depth.add_scatter(
                x=[_plain(b) for b in by_depth],
                y=list(by_depth.values()),
                mode="lines+markers",
                name=_plain(name),
                line=_line(name, i),
                marker_size=8,
                hovertemplate="turns since given %{x}<br>followed %{y:.0%}<extra>%{fullData.name}</extra>",
            )
    _layout(
        depth,
        "Instructions followed, by turns since they were given",
        scale,
        xaxis=dict(title="turns since the instruction", type="category"),
        yaxis=dict(title="share followed", range=[0, 1.05], tickformat=".0%"),
    )
    iar = go.Figure()
    drawn = [(n, m) for n, m in arms.items() if m.get("probes")]
    for key, label, color in (("iar", "all probes", "#7c3aed"), ("iar_depth_10_plus", "10+ turns later", "#c4b5fd")):
        iar.add_bar(
            x=[_plain(n) for n, _ in drawn],
            y=[m.get(key) for _, m in drawn],
            name=label,
            marker_color=color,
            customdata=[m.get("mean_prompt_tokens") or 0 for _, m in drawn],
            hovertemplate="%{x}: %{y:.0%} of probes follow every instruction"
            "<br>mean prompt %{customdata:.0f} tokens<extra>" + label + "</extra>",
        )
    _layout(
        iar,
        adherence_verdict(arms),
        scale,
        barmode="group",
        yaxis=dict(title="probes that follow every instruction", range=[0, 1.05], tickformat=".0%"),
    )
    title = "Instruction adherence" if task == "adherence" else "Ablations (instruction adherence)"
    return _view(task, title, data, _with_model(scale, data.get("model")), command, [depth, iar])


def adherence_verdict(arms: dict) -> str:
    """The IAR chart's title: whether REA follows more instructions than vanilla in this run, in plain words
    (a tie or a loss is said as plainly as a win); the bare metric name when the run has not both."""
    rea, vanilla = arms.get("rea") or {}, arms.get("vanilla") or {}
    if not rea.get("probes") or not vanilla.get("probes"):
        return "Instruction adherence rate (IAR)"
    a, b = 10 * float(rea["iar"]), 10 * float(vanilla["iar"])
    if a > b:
        return f"REA follows more instructions: IAR {a:.1f} vs vanilla {b:.1f} of 10"
    if a == b:
        return f"REA and vanilla tie: IAR {a:.1f} of 10 each"
    return f"REA does not beat vanilla here: IAR {a:.1f} vs vanilla {b:.1f} of 10"


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
    counts = f"{_n(conversations, 'conversation')} of {turns} turns, " + (
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
        shown, line = _plain(name), _line(name, i)
        tokens.add_scatter(
            x=[r["turn"] for r in recs],
            y=[r["prompt_tokens"] for r in recs],
            mode="lines",
            name=shown,
            line=line,
            hovertemplate="turn %{x}: %{y} prompt tokens<extra>%{fullData.name}</extra>",
        )
        gen = [r for r in recs if r["generated"]]
        seconds.add_scatter(
            x=[r["turn"] for r in gen],
            y=[r["latency_s"] for r in gen],
            mode="lines+markers",
            name=shown,
            line=line,
            hovertemplate="turn %{x}: %{y:.2f} s<extra>%{fullData.name}</extra>",
        )
    _layout(
        tokens,
        "Prompt tokens per turn over a long chat",
        scale,
        xaxis=dict(title="turn"),
        yaxis=dict(title="prompt tokens", rangemode="tozero"),
    )
    latency_scale = (scale, f"vanilla takes {ratio:.2f}x REA's time over the last quarter") if ratio else scale
    _layout(
        seconds,
        "Reply latency per generated turn",
        latency_scale,
        xaxis=dict(title="turn"),
        yaxis=dict(title="seconds", rangemode="tozero"),
    )
    caption = _with_model(scale, data.get("model"))
    return _view("latency", "Latency over a long chat", data, caption, command, [tokens, seconds])


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
    scale = _scale("retrieval", f"{_n(conversations, 'conversation')}, {_n(queries, 'query', 'queries')}", queries)
    fmt = " --format locomo" if dataset.endswith(" (locomo)") else ""
    command = f"rea eval retrieval --data <{data_file}>{fmt} --policies {','.join(policies)} --out <folder>"

    bars = go.Figure()
    measures = (
        ("all_kept", "queries with every needed exchange kept", "#7c3aed"),
        ("kept_share", "share of earlier exchanges kept", "#f59e0b"),
        ("prompt_share", "share of history tokens in the prompt", "#9ca3af"),
    )
    for key, label, color in measures:
        bars.add_bar(
            x=[_plain(n) for n in policies],
            y=[m[key] for m in policies.values()],
            name=label,
            marker_color=color,
            hovertemplate="%{x}: %{y:.1%}<extra>" + label + "</extra>",
        )
    _layout(
        bars,
        "Needed exchanges kept, and how much history that costs",
        scale,
        barmode="group",
        yaxis=dict(range=[0, 1.05], tickformat=".0%"),
    )
    curve = go.Figure()
    for i, (name, m) in enumerate(policies.items()):
        shown, color = _plain(name), _color(name, i)
        if m.get("sweep"):
            s = m["sweep"]
            curve.add_scatter(
                x=s["kept_share"],
                y=s["all_kept"],
                mode="lines",
                name=f"{shown} (tau_low sweep)",
                line=dict(color=color, width=2),
                customdata=s["tau_low"],
                hovertemplate="tau_low %{customdata:.2f}: kept %{x:.1%}, "
                "all needed kept %{y:.1%}<extra>%{fullData.name}</extra>",
            )
        curve.add_scatter(
            x=[m["kept_share"]],
            y=[m["all_kept"]],
            mode="markers",
            name=f"{shown} as run",
            marker=dict(color=color, size=12, symbol="diamond", line=dict(color="#111", width=1)),
            hovertemplate="kept %{x:.1%}, all needed kept %{y:.1%}<extra>%{fullData.name}</extra>",
        )
    _layout(
        curve,
        "Recall against the share of history kept",
        scale,
        xaxis=dict(title="share of earlier exchanges kept", range=[0, 1.02], tickformat=".0%"),
        yaxis=dict(title="all needed kept", range=[0, 1.05], tickformat=".0%"),
    )
    caption = _with_model(scale, data.get("embedder"))
    return _view("retrieval", f"Retrieval on {data_file}", data, caption, command, [bars, curve])
