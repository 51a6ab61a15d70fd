"""The conversations ``rea eval retrieval`` and ``rea eval qa`` read, as ``RetrievalCase``s (``load_cases``):

* conversation JSONL where a turn may carry ``"needed": [exchange indices]`` (0-based): that turn's user
  text is a query over the exchanges before it (and, for ``rea eval qa``, ``"answer"``: its gold answer);
* the public LoCoMo JSON (``--format locomo``): a file or a folder of per-conversation files
  (``speaker_a``, ``session_N`` lists of turns with ``dia_id``, ``qa`` with ``evidence``). Turns pair
  into exchanges in order within each session, speaker names kept in the text; each question is a
  query over the whole conversation; category 5 (adversarial) is skipped.

Every error is a ``DataFormatError`` naming the file (and line), raised before any model loads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Sequence

from ..conversations import Conversation, check_turn_chars, parse_conversation, read_jsonl, turn_record
from ..errors import DataFormatError
from ..timestamps import parse_locomo_time
from ..validation import parse_json, read_text


@dataclass(frozen=True)
class RetrievalQuery:
    position: int  # exchanges before the query (it sees exchanges 0 .. position-1)
    text: str
    needed: tuple[int, ...]
    answer: str | None = None  # the gold answer, where the data gives one (``rea eval qa``)
    category: int | None = None  # LoCoMo: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop


@dataclass(frozen=True)
class RetrievalCase:
    id: str
    exchanges: tuple[tuple[str, str], ...]  # (user, reply)
    queries: tuple[RetrievalQuery, ...]
    times: tuple[str | None, ...] = ()  # when each exchange happened (stored form of rea_core.timestamps); () unknown

    def time_of(self, index: int) -> str | None:
        return self.times[index] if self.times else None


def known_times(times) -> tuple[str | None, ...]:
    """``RetrievalCase.times`` from one time (or None) per exchange: () where the data gives none at all."""
    times = tuple(times)
    return times if any(t is not None for t in times) else ()


# -- loading ---------------------------------------------------------------------------------------


def load_needed_jsonl(path: str | Path, *, answers: bool = False, max_chars: int | None = None) -> list[RetrievalCase]:
    """Conversation JSONL whose turns may carry ``needed``; every error names the file and line.

    With ``answers`` (``rea eval qa``) a turn carrying ``"answer"`` is a query too, ``needed`` optional.
    ``max_chars``: the most characters of one turn's text or answer (``check_turn_chars``)."""
    cases = parse_needed_rows(read_jsonl(path), answers=answers, max_chars=max_chars)
    if not cases:
        what = '"answer"' if answers else '"needed"'
        raise DataFormatError(f"{path}: no turn carries {what}; nothing to evaluate")
    return cases


def parse_needed_cases(objects: Sequence[dict], *, where: str) -> list[RetrievalCase]:
    """Conversations already decoded (the Inspect tab's stored marks) as cases."""
    return parse_needed_rows([(f"{where}: conversation {i}", obj) for i, obj in enumerate(objects)])


def parse_needed_rows(rows, *, answers: bool = False, max_chars: int | None = None) -> list[RetrievalCase]:
    cases = []
    for where, obj in rows:
        conv = parse_conversation(obj, where=where, max_chars=max_chars)
        exchanges, queries = [], []
        for i, raw in enumerate(obj["turns"]):
            needed = raw.get("needed")
            answer = raw.get("answer")
            if answer is not None and (not isinstance(answer, str) or not answer.strip()):
                raise DataFormatError(f'{where}: turn {i} "answer" must be non-empty text, got {answer!r:.80}')
            if answer is not None:
                check_turn_chars(answer, max_chars, f'{where}: turn {i} "answer"')
            if answers and answer is not None and needed is None:
                queries.append(RetrievalQuery(position=i, text=conv.turns[i].user, needed=(), answer=answer.strip()))
            if needed is not None:
                if (
                    not isinstance(needed, list)
                    or not needed
                    or not all(isinstance(n, int) and not isinstance(n, bool) for n in needed)
                ):
                    raise DataFormatError(f'{where}: turn {i} "needed" must be a non-empty list of exchange indices')
                bad = [n for n in needed if not 0 <= n < i]
                if bad:
                    raise DataFormatError(
                        f'{where}: turn {i} "needed" names exchange(s) {bad}, not before that turn (0-{i - 1})'
                    )
                queries.append(
                    RetrievalQuery(
                        position=i,
                        text=conv.turns[i].user,
                        needed=tuple(sorted(set(needed))),
                        answer=answer.strip() if answer is not None else None,
                    )
                )
            exchanges.append((conv.turns[i].user, conv.turns[i].assistant or ""))
        if queries:
            cases.append(
                RetrievalCase(
                    id=conv.id,
                    exchanges=tuple(exchanges),
                    queries=tuple(queries),
                    times=known_times(t.time for t in conv.turns),
                )
            )
    return cases


_LOCOMO_SESSION = re.compile(r"session_\d+")


def _locomo_text(turn: dict) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    return text + (f" [shares a photo: {turn['blip_caption']}]" if turn.get("blip_caption") else "")


def parse_locomo(data: dict, case_id: str, *, max_chars: int | None = None) -> RetrievalCase:
    """One LoCoMo conversation as exchanges (turn pairs within each session) and its questions.

    ``max_chars``: the most characters of one turn (as the exchange holds it: speaker, text and
    photo caption), question or answer (``check_turn_chars``). The release's layout, with the sessions
    nested under ``"conversation"`` beside ``"qa"``, reads as the flat one."""
    if isinstance(data, dict) and isinstance(data.get("conversation"), dict) and "session_1" not in data:
        data = {**data["conversation"], **{k: data[k] for k in ("qa",) if k in data}}
    if not isinstance(data, dict) or "qa" not in data or "session_1" not in data:
        raise DataFormatError(f'{case_id}: a LoCoMo conversation needs "session_1" and "qa"')
    exchanges: list[tuple[str, str]] = []
    times: list[str | None] = []
    where: dict[str, int] = {}
    sessions = sorted(
        (int(m.group(1)), k) for k in data if (m := re.fullmatch(r"session_(\d+)", k)) and isinstance(data[k], list)
    )
    for _, key in sessions:
        turns = data[key]
        date = data.get(f"{key}_date_time")
        time = parse_locomo_time(date, where=f"{case_id}: {key}_date_time") if date is not None else None
        for j, t in enumerate(turns):  # the fields every turn is read by, as text
            if not (isinstance(t, dict) and all(isinstance(t.get(k), str) for k in ("speaker", "dia_id", "text"))):
                raise DataFormatError(f'{case_id}: {key} turn {j} needs text "speaker", "dia_id" and "text"')
            check_turn_chars(_locomo_text(t), max_chars, f"{case_id}: {key} turn {j}")
        for i in range(0, len(turns), 2):
            pair = turns[i : i + 2]
            for t in pair:
                where[t["dia_id"]] = len(exchanges)
            exchanges.append((_locomo_text(pair[0]), _locomo_text(pair[1]) if len(pair) > 1 else ""))
            times.append(time)
    queries = []
    for n, q in enumerate(data["qa"]):
        if q.get("category") == 5:
            continue
        needed = sorted({where[e] for e in q.get("evidence", []) if e in where})
        if needed:
            answer = q.get("answer")  # LoCoMo gives a year as a number
            if answer is not None and (isinstance(answer, bool) or not isinstance(answer, (str, int, float))):
                raise DataFormatError(
                    f'{case_id}: question {q.get("question", "")[:60]!r} has a {type(answer).__name__} "answer"; '
                    "expected text or a number"
                )
            answer = None if answer is None else str(answer)
            for what, text in (("question", str(q["question"])), ("answer", answer or "")):
                check_turn_chars(text, max_chars, f'{case_id}: the {what} of "qa" {n}')
            queries.append(
                RetrievalQuery(
                    position=len(exchanges),
                    text=str(q["question"]),
                    needed=tuple(needed),
                    answer=answer,
                    category=q.get("category") if isinstance(q.get("category"), int) else None,
                )
            )
    return RetrievalCase(id=case_id, exchanges=tuple(exchanges), queries=tuple(queries), times=known_times(times))


def is_locomo(data: object) -> bool:
    """Whether decoded JSON is meant as LoCoMo: one conversation or a list of them, any of which
    carries a key only LoCoMo has ("qa", "sample_id", "session_<n>").

    Loose on purpose: a damaged LoCoMo file (a conversation without "qa") is then refused by
    ``load_locomo`` with what LoCoMo needs, not read as another format and refused in its terms."""
    items = data if isinstance(data, list) else [data]
    return any(
        isinstance(x, dict) and ("qa" in x or "sample_id" in x or any(_LOCOMO_SESSION.fullmatch(str(k)) for k in x))
        for x in items
    )


def case_conversation(
    case: RetrievalCase, *, max_chars: int | None = None, max_turns: int | None = None, where: str | None = None
) -> Conversation:
    """A case's exchanges as a conversation (user, assistant, time), checked as a conversation file's
    line is (``max_chars``, ``max_turns``), so LoCoMo data can be traced like conversation JSONL."""
    turns = [turn_record(user, reply, case.time_of(i)) for i, (user, reply) in enumerate(case.exchanges)]
    return parse_conversation(
        {"id": case.id, "turns": turns}, where=where or case.id, max_chars=max_chars, max_turns=max_turns
    )


def load_locomo(path: str | Path, *, max_chars: int | None = None) -> list[RetrievalCase]:
    """A LoCoMo file (one conversation or the release's list of them) or a folder of such files.

    Every refusal names the file, says it was read as LoCoMo, and which conversation (its index in
    the file) broke what; ``max_chars`` caps each turn, question and answer (``parse_locomo``)."""
    path = Path(path)
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    if not files:
        raise DataFormatError(f"{path}: no .json files")
    cases = []
    for f in files:
        data = parse_json(read_text(f), where=str(f))  # depth, numbers and text checked before any use
        items = data if isinstance(data, list) else [data]
        for i, item in enumerate(items):
            cid = (
                str(item.get("sample_id", f"{f.stem}" if len(items) == 1 else f"{f.stem}-{i}"))
                if isinstance(item, dict)
                else f.stem
            )
            try:
                cases.append(parse_locomo(item, cid, max_chars=max_chars))
            except DataFormatError as exc:
                raise DataFormatError(f"{f}: LoCoMo conversation {i}: {exc}") from exc
            except (KeyError, TypeError, AttributeError, ValueError) as exc:  # a field of the wrong shape
                what = (
                    f"a turn or question lacks {exc.args[0]!r:.40}"
                    if isinstance(exc, KeyError)
                    else "a field of a wrong type"
                )
                raise DataFormatError(f"{f}: LoCoMo conversation {i} is malformed ({what})") from exc
    return cases


# A small LoCoMo file packaged with rea_core, to try LoCoMo's format without the dataset (Inspect offers
# it as an example; ``rea eval qa --format locomo --data`` reads it): invented people (Ines, Kofi) and
# dates, three sessions, six questions with evidence ids, one of them adversarial (category 5).
LOCOMO_SAMPLE = "locomo-ines-kofi.json"


def locomo_sample() -> Path:
    """The packaged LoCoMo sample's path (``LOCOMO_SAMPLE`` in ``rea_core/data``), read by ``load_locomo``."""
    return Path(str(resources.files("rea_core").joinpath("data", LOCOMO_SAMPLE)))


def load_cases(
    path: str | Path, fmt: str = "jsonl", *, answers: bool = False, max_chars: int | None = None
) -> list[RetrievalCase]:
    """``answers``: JSONL turns with an ``"answer"`` are queries even without ``"needed"`` (``rea eval qa``).

    ``max_chars``: the most characters of one turn, question or answer (the CLI passes
    ``RuntimeConfig.max_message_chars``, REA_MAX_MESSAGE_CHARS), refused before any model loads."""
    if fmt == "locomo":
        cases = load_locomo(path, max_chars=max_chars)
        if not any(c.queries for c in cases):  # e.g. every "evidence" names no turn: nothing would be measured
            raise DataFormatError(f"{path}: no question whose evidence names a turn; nothing to evaluate")
        return cases
    if fmt == "jsonl":
        return load_needed_jsonl(path, answers=answers, max_chars=max_chars)
    raise DataFormatError(f"unknown format {fmt!r}; use jsonl or locomo")
