"""Training sessions for the codec (REA paper, A.3), built offline from packaged conversation sets.

Filters: no interaction with a code block, none under 10 tokens (user + reply), and sessions of
3-15 turns, made of consecutive clean turns. Sessions are split into train / held-out by a hash
of their id, so the split never changes between runs. Targets are the dataset's replies, or the
backbone's own replies given the full raw history (self-distillation, ``add_self_targets``).

File format (JSONL, one session a line)::

    {"id": "sharegpt-12", "source": "sharegpt", "split": "train",
     "turns": [{"user": "...", "reply": "...", "self_reply": "..."?}, ...]}
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from ..conversations import check_turn_chars, read_jsonl
from ..corpora import chitchat_conversations, is_clean_turn, sharegpt_sessions
from ..errors import DataFormatError

MIN_TURNS, MAX_TURNS = 3, 15
MIN_TOKENS = 10


@dataclass(frozen=True)
class Session:
    id: str
    source: str
    split: str
    turns: tuple[dict, ...]

    def to_dict(self) -> dict:
        return {"id": self.id, "source": self.source, "split": self.split, "turns": list(self.turns)}


def split_of(session_id: str, heldout_share: float) -> str:
    bucket = int(hashlib.sha1(session_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF
    return "heldout" if bucket < heldout_share else "train"


def clean_runs(
    pairs: list[tuple[str, str]], count_tokens: Callable[[str], int], max_chars: int
) -> Iterator[list[tuple[str, str]]]:
    """Maximal runs of consecutive clean turns, cut to at most MAX_TURNS, kept if at least MIN_TURNS long."""
    run: list[tuple[str, str]] = []
    for user, reply in pairs + [("", "")]:
        ok = (
            bool(user)
            and is_clean_turn(user, reply, min_words=1, max_chars=max_chars)
            and count_tokens(user + " " + reply) >= MIN_TOKENS
        )
        if ok:
            run.append((user, reply))
            if len(run) == MAX_TURNS:
                yield run
                run = []
            continue
        if len(run) >= MIN_TURNS:
            yield run
        run = []


def build_sessions(
    *,
    sources: Iterable[str] = ("sharegpt", "chitchat"),
    limit_per_source: int | None = None,
    count_tokens: Callable[[str], int] | None = None,
    max_chars: int = 2000,
    heldout_share: float = 0.05,
) -> Iterator[Session]:
    """Filtered sessions from the packaged sets. ``count_tokens`` defaults to whitespace words."""
    count = count_tokens or (lambda text: len(text.split()))
    for source in sources:
        if source == "sharegpt":
            raw = ((f"sharegpt-{i}", pairs) for i, pairs in enumerate(sharegpt_sessions()))
        elif source == "chitchat":
            raw = (
                (f"chitchat-{i}", list(zip(msgs[::2], msgs[1::2]))) for i, msgs in enumerate(chitchat_conversations())
            )
        else:
            raise ValueError(f"unknown source {source!r}; choose sharegpt or chitchat")
        made = 0
        for sid, pairs in raw:
            for k, run in enumerate(clean_runs(pairs, count, max_chars)):
                run_id = f"{sid}.{k}"
                yield Session(
                    run_id, source, split_of(run_id, heldout_share), tuple({"user": u, "reply": r} for u, r in run)
                )
                made += 1
                if limit_per_source is not None and made >= limit_per_source:
                    break
            if limit_per_source is not None and made >= limit_per_source:
                break


def write_sessions(sessions: Iterable[Session], path: str | Path) -> dict:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        for s in sessions:
            out.write(json.dumps(s.to_dict(), ensure_ascii=False) + "\n")
            counts[s.split] = counts.get(s.split, 0) + 1
    tmp.replace(path)
    return counts


def read_sessions(path: str | Path, split: str | None = None, *, max_chars: int | None = None) -> list[Session]:
    """Sessions from a JSONL file; a bad line raises DataFormatError naming it, as does a turn's text
    over ``max_chars`` characters (``conversations.check_turn_chars``)."""
    sessions = []
    for where, obj in read_jsonl(path, what="codec training sessions"):
        try:
            turns = tuple(
                {
                    "user": str(t["user"]),
                    "reply": str(t["reply"]),
                    **({"self_reply": str(t["self_reply"])} if t.get("self_reply") else {}),
                }
                for t in obj["turns"]
            )
            if len(turns) < 2:
                raise ValueError("needs at least 2 turns")
            session = Session(str(obj["id"]), str(obj.get("source", "")), str(obj.get("split", "train")), turns)
        except (KeyError, TypeError, ValueError) as exc:
            raise DataFormatError(f"{where}: not a codec training session ({type(exc).__name__}: {exc})") from exc
        for i, turn in enumerate(turns):
            for role, text in turn.items():
                check_turn_chars(text, max_chars, f'{where}: turn {i} "{role}"')
        if split is None or session.split == split:
            sessions.append(session)
    return sessions


def add_self_targets(
    sessions: list[Session], generator, *, system_prompt: str, max_new_tokens: int = 128, progress=None
) -> list[Session]:
    """Self-distillation targets: each reply regenerated by the backbone from the full raw history."""
    done = []
    for session in sessions:
        turns, history = [], []
        for t in session.turns:
            messages = (
                [{"role": "system", "content": system_prompt}] + history + [{"role": "user", "content": t["user"]}]
            )
            reply = generator.generate(messages, max_new_tokens=max_new_tokens).text
            turns.append({**t, "self_reply": reply})
            history += [{"role": "user", "content": t["user"]}, {"role": "assistant", "content": t["reply"]}]
        done.append(Session(session.id, session.source, session.split, tuple(turns)))
        if progress is not None:
            progress.update(1)
    return done
