"""Generated evaluation suites built offline from packaged conversation sets.

``make_adherence_suite``: conversations where global instructions (14 verifiable kinds, IFEval ids)
are set at varied turns, buried under distractor turns from ShareGPT and Chit Chat with topic
changes, sometimes revoked ("you can stop ..."), and probed at several depths (REA paper, 4.4-4.5).
With ``compliant_history=True`` every stored reply is rewritten (``comply``) to follow the
instructions in force at its turn, as a capable assistant's history would.
"""

from __future__ import annotations

import json
import random
import re
import zlib
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Iterable

from ..corpora import chitchat_conversations, is_clean_turn, sharegpt_sessions
from .adherence import GlobalInstruction


@dataclass(frozen=True)
class InstructionKind:
    name: str
    phrasings: tuple[str, ...]  # how a user states it
    revoke: str  # how a user lifts it
    checks: tuple[dict, ...]


KINDS: tuple[InstructionKind, ...] = (
    InstructionKind(
        "lowercase",
        (
            "From now on, answer only in lowercase letters.",
            "For the rest of our conversation, write everything in lowercase, no capital letters at all.",
        ),
        "You can stop writing in lowercase now.",
        ({"instruction_id": "change_case:english_lowercase", "kwargs": {}},),
    ),
    InstructionKind(
        "uppercase",
        ("From now on, answer in all capital letters.", "Going forward, please write all your replies in uppercase."),
        "You can stop writing in capital letters now.",
        ({"instruction_id": "change_case:english_capital", "kwargs": {}},),
    ),
    InstructionKind(
        "no_comma",
        (
            "From now on, do not use any commas in your replies.",
            "For the rest of this chat, never use a comma in your answers.",
        ),
        "You can stop avoiding commas now.",
        ({"instruction_id": "punctuation:no_comma", "kwargs": {}},),
    ),
    InstructionKind(
        "end_phrase",
        (
            "From now on, end every reply with the exact phrase 'Is there anything else I can help with?'",
            "In all your future answers, finish with: Is there anything else I can help with?",
        ),
        "You can stop ending with that question now.",
        (
            {
                "instruction_id": "startend:end_checker",
                "kwargs": {"end_phrase": "Is there anything else I can help with?"},
            },
        ),
    ),
    InstructionKind(
        "word_limit",
        (
            "From now on, keep every answer under 60 words.",
            "For the rest of our chat, answer in fewer than 60 words each time.",
        ),
        "You no longer need to keep answers short.",
        ({"instruction_id": "length_constraints:number_words", "kwargs": {"num_words": 60, "relation": "less than"}},),
    ),
    InstructionKind(
        "forbidden_word",
        (
            "From now on, never use the word 'very' in your answers.",
            "Going forward, avoid the word 'very' in all your replies.",
        ),
        "You can use the word very again.",
        ({"instruction_id": "keywords:forbidden_words", "kwargs": {"forbidden_words": ["very"]}},),
    ),
    InstructionKind(
        "keyword",
        (
            "From now on, mention the word 'banana' in every reply.",
            "In all your replies from now on, include the word banana.",
        ),
        "You can stop mentioning banana now.",
        ({"instruction_id": "keywords:existence", "kwargs": {"keywords": ["banana"]}},),
    ),
    InstructionKind(
        "first_letter",
        (
            "From now on, begin each response with the letter r.",
            "For the rest of this conversation, start every reply with the letter R.",
        ),
        "You can stop starting your replies with r.",
        ({"instruction_id": "startend:first_letter", "kwargs": {"letter": "r"}},),
    ),
    InstructionKind(
        "quotation",
        (
            "From now on, wrap your entire response in double quotation marks.",
            "Going forward, put every whole answer inside double quotes.",
        ),
        "You can stop wrapping answers in quotes.",
        ({"instruction_id": "startend:quotation", "kwargs": {}},),
    ),
    InstructionKind(
        "title",
        (
            "From now on, give every answer a title in double angular brackets, like <<my title>>.",
            "In all your future replies, start with a title wrapped like <<title>>.",
        ),
        "You can stop adding titles now.",
        ({"instruction_id": "detectable_format:title", "kwargs": {}},),
    ),
    InstructionKind(
        "postscript",
        (
            "From now on, end each reply with a postscript starting with P.S.",
            "For the rest of our chat, add a P.S. at the end of every answer.",
        ),
        "You can stop adding a P.S. now.",
        ({"instruction_id": "detectable_content:postscript", "kwargs": {"postscript_marker": "P.S."}},),
    ),
    InstructionKind(
        "json",
        (
            "From now on, format every reply as valid JSON.",
            "Going forward, your whole answer must always be a JSON object.",
        ),
        "You can stop answering in JSON.",
        ({"instruction_id": "detectable_format:json_format", "kwargs": {}},),
    ),
    InstructionKind(
        "french",
        ("From now on, reply only in French.", "For the rest of this conversation, always answer in French."),
        "You can stop answering in French now.",
        ({"instruction_id": "language:response_language", "kwargs": {"language": "fr"}},),
    ),
    InstructionKind(
        "bullets",
        (
            "From now on, answer with exactly 3 markdown bullet points starting with '* '.",
            "In all your future replies, use exactly three bullet points like '* point'.",
        ),
        "You can stop using bullet points now.",
        ({"instruction_id": "detectable_format:number_bullet_lists", "kwargs": {"num_bullets": 3}},),
    ),
)


# A wording constraint and a framing constraint per conversation, minus pairs no reply can satisfy.
WORDING = {"lowercase", "uppercase", "no_comma", "forbidden_word", "keyword", "french", "word_limit"}
CONFLICTS = {
    frozenset(p)
    for p in [
        ("lowercase", "postscript"),
        ("lowercase", "end_phrase"),
        ("uppercase", "end_phrase"),
        ("no_comma", "json"),
        ("keyword", "french"),
        ("french", "end_phrase"),
        ("french", "json"),
    ]
}


def compatible_pair(rng: random.Random, kinds: tuple[InstructionKind, ...] = KINDS) -> list[InstructionKind]:
    """A wording and a framing kind from ``kinds`` that one reply can satisfy together, in random order."""
    wording = [k for k in kinds if k.name in WORDING]
    framing = [k for k in kinds if k.name not in WORDING]
    while True:
        pair = [rng.choice(wording), rng.choice(framing)]
        if frozenset(k.name for k in pair) not in CONFLICTS:
            rng.shuffle(pair)
            return pair


def select_kinds(names: Iterable[str] | None) -> tuple[InstructionKind, ...]:
    """The kinds named (all when None); ValueError for an unknown name or a set a suite cannot pair."""
    if names is None:
        return KINDS
    wanted = set(names)
    if unknown := wanted - {k.name for k in KINDS}:
        raise ValueError(f"unknown instruction kinds: {', '.join(sorted(unknown))}")
    chosen = tuple(k for k in KINDS if k.name in wanted)
    if not any(k.name in WORDING for k in chosen) or all(k.name in WORDING for k in chosen):
        raise ValueError(
            f"a suite pairs a wording kind ({', '.join(sorted(WORDING))}) with a framing kind; name one of each"
        )
    return chosen


def _distractor_pool(rng: random.Random, n_sessions: int = 400) -> list[list[tuple[str, str]]]:
    """Topic blocks: short clean ShareGPT sessions and Chit Chat conversations as (user, reply) turns."""
    blocks = []
    for pairs in sharegpt_sessions(n_sessions):
        clean = [(u, r) for u, r in pairs if is_clean_turn(u, r, max_chars=1200)]
        if clean:
            blocks.append(clean[:4])
    for messages in chitchat_conversations(n_sessions):
        pairs = [(u, r) for u, r in zip(messages[::2], messages[1::2]) if is_clean_turn(u, r, min_words=2)]
        if len(pairs) >= 2:
            blocks.append(pairs[:4])
    rng.shuffle(blocks)
    return blocks


def make_adherence_suite(
    n: int = 20,
    turns: int = 24,
    seed: int = 0,
    *,
    probe_depths: tuple[int, ...] = (2, 5, 10, 15, 20),
    compliant_history: bool = False,
    kinds: Iterable[str] | None = None,
) -> list[dict]:
    """``n`` conversations of ``turns`` turns in the adherence file format (README, "Evaluations").

    Args:
        compliant_history: rewrite every stored reply to follow the instructions in force at its turn
            (``comply_case``), as a capable assistant's history would; each case then carries
            ``"compliant_history": true``. The same seed gives the same conversations either way.
        kinds: only these instruction kinds (names from ``KINDS``; at least one wording and one framing kind),
            e.g. the families an adapter was not trained on; None: all of them.
    """
    if turns < 6:
        raise ValueError("an adherence conversation needs at least 6 turns")
    chosen = select_kinds(kinds)
    rng = random.Random(seed)
    pool = _distractor_pool(rng)
    stream = (turn for block in pool * 50 for turn in block)  # topic changes at block borders
    suite = []
    for i in range(n):
        kinds = compatible_pair(rng, chosen)
        first = rng.randint(0, 2)
        second = rng.randint(first + 3, max(first + 3, turns // 2))
        revoke_at = rng.randint(second + 3, turns - 2) if rng.random() < 0.3 and second + 3 <= turns - 2 else None
        set_at = {first: kinds[0], second: kinds[1]}
        probes = sorted({first + d for d in probe_depths if first + d < turns} - {second, revoke_at})
        conversation_turns = []
        for t in range(turns):
            if t in set_at:
                conversation_turns.append({"user": rng.choice(set_at[t].phrasings), "assistant": "Understood."})
            elif t == revoke_at:
                conversation_turns.append({"user": kinds[0].revoke, "assistant": "Okay."})
            else:
                user, reply = next(stream)
                conversation_turns.append({"user": user} if t in probes else {"user": user, "assistant": reply})
        global_instructions = [
            {
                "turn": first,
                "kind": kinds[0].name,
                "checks": list(kinds[0].checks),
                **({"until_turn": revoke_at} if revoke_at else {}),
            },
            {"turn": second, "kind": kinds[1].name, "checks": list(kinds[1].checks)},
        ]
        case = {
            "id": f"adh-{seed}-{i:03d}",
            "turns": conversation_turns,
            "global_instructions": global_instructions,
            "probe_turns": probes,
        }
        suite.append(comply_case(case) if compliant_history else case)
    return suite


# --- Compliant histories -------------------------------------------------------------------------
# One pure transform per kind rewrites a stored reply so it passes that kind's checker
# (rea_core/evals/checks.py). ``comply`` applies the ones in force in a fixed order: wording kinds
# change the content (language first, case last), framing kinds then add their marks around it. Each
# transform sees the whole set in force so that what it adds keeps the others satisfied (added words
# take the reply's case and language, contain no comma and never the forbidden word). Guaranteed for
# every set the suite holds in force (one kind, or a wording and a framing kind outside CONFLICTS);
# not for two framing kinds (JSON cannot also end with a phrase, start with r or hold bullets).

_ACKS = {
    "Understood.": "Understood. I will follow that from now on. Thanks for telling me.",
    "Okay.": "Okay. I will stop doing that now. Thanks for letting me know.",
}
_EN_PADDING = (
    "I hope this is useful to you.",
    "Feel free to ask me more about it.",
    "Let me know what you think about this.",
)
_EN_FALLBACK = (
    "Here is my answer in short. The details depend on your situation but the main idea stays the same. "
    "Start with the simplest option and see how it works for you. If something is still unclear just ask me again."
)
_FRENCH = (  # each starts with R (first_letter) and has three sentences (bullets)
    "Rappelons d'abord l'essentiel : tout dépend du contexte. "
    "Dans la plupart des cas la solution la plus simple est aussi la meilleure. "
    "Je vous conseille de commencer petit et d'ajuster ensuite selon les résultats.",
    "Répondre à cette question demande un peu de nuance. "
    "Il existe plusieurs approches possibles et chacune a ses avantages. "
    "Le plus important est de choisir celle qui correspond à vos besoins réels.",
    "Rien de plus simple : il suffit de procéder étape par étape. "
    "Commencez par rassembler les informations nécessaires. "
    "Ensuite vous pourrez comparer les options et prendre une décision éclairée.",
    "Réfléchissons ensemble à votre demande. Les détails comptent beaucoup dans ce genre de situation. "
    "Avec un peu de patience vous trouverez sans doute une réponse qui vous convient.",
)
_END_PHRASE = "Is there anything else I can help with?"
_WORD_BUDGET = 40  # under word_limit's 60, leaving room for what framing kinds add
_WORD = re.compile(r"\w+")  # the tokenizer behind IFEval's count_words


def _case(text: str, active: frozenset[str]) -> str:
    return text.lower() if "lowercase" in active else text.upper() if "uppercase" in active else text


def _french_text(text: str, active: frozenset[str]) -> str:
    return _FRENCH[zlib.crc32(text.encode("utf-8")) % len(_FRENCH)]  # no offline translation: a canned reply


def _no_forbidden(text: str, active: frozenset[str]) -> str:
    return re.sub(
        r"\bvery\b",
        lambda m: "REALLY" if m[0].isupper() else "Really" if m[0][0].isupper() else "really",
        text,
        flags=re.IGNORECASE,
    )


def _with_keyword(text: str, active: frozenset[str]) -> str:
    return (
        text
        if re.search("banana", text, re.IGNORECASE)
        else f"{text.rstrip()} Think of it like a banana: simple once you peel it."
    )


def _word_limit(text: str, active: frozenset[str]) -> str:
    words = list(_WORD.finditer(text))
    return text if len(words) <= _WORD_BUDGET else text[: words[_WORD_BUDGET - 1].end()].rstrip() + "."


def _no_comma(text: str, active: frozenset[str]) -> str:
    return re.sub(r"\s*,\s*", " ", re.sub(r"(?<=\d),(?=\d)", "", text))


@lru_cache(maxsize=1)
def _detector_factory():
    from langdetect import PROFILES_DIRECTORY, DetectorFactory  # the checkers' language detector (via if-verifiable)

    factory = DetectorFactory()  # our own, seeded per detector: langdetect.detect is random
    factory.load_profile(PROFILES_DIRECTORY)
    return factory


def _clearly(text: str, lang: str) -> bool:
    """Under several seeds the detector picks ``lang`` with near certainty, so the checkers' unseeded runs agree."""
    from langdetect.lang_detect_exception import LangDetectException

    for seed in range(3):
        detector = _detector_factory().create()
        detector.seed = seed
        detector.append(text)
        try:
            best = detector.get_probabilities()[0]
        except LangDetectException:  # text without letters
            return False
        if best.lang != lang or best.prob < 0.999:
            return False
    return True


def _bullets(text: str, active: frozenset[str]) -> str:
    """Exactly three '* ' lines from the reply's sentences; no other line starts with * or -."""
    words = " ".join(re.sub(r"^\s*(?:[-*+•#>]+|\d+[.)])\s*", "", line) for line in text.splitlines()).split()
    parts = re.split(r"(?<=[.!?])\s+", " ".join(words)) if words else []
    while len(parts) < 3:  # too few sentences: split the longest part at a clause, else between words
        k = max(range(len(parts)), key=lambda i: len(parts[i].split())) if parts else 0
        tokens = parts[k].split() if parts else []
        if len(tokens) < 2:
            parts.append(_case("Noted.", active))
            continue
        cuts = [i for i in range(1, len(tokens)) if tokens[i - 1][-1] in ",;:"] or [len(tokens) // 2]
        cut = min(cuts, key=lambda i: abs(i - len(tokens) / 2))
        parts[k : k + 1] = [" ".join(tokens[:cut]), " ".join(tokens[cut:])]
    bounds = [round(k * len(parts) / 3) for k in range(4)]
    return "\n".join("* " + " ".join(parts[a:b]) for a, b in zip(bounds, bounds[1:]))


def _title(text: str, active: frozenset[str]) -> str:
    return f"<<{_case('Réponse' if 'french' in active else 'Answer', active)}>>\n{text.lstrip()}"


def _first_letter(text: str, active: frozenset[str]) -> str:
    if text.lstrip(" \t\n\"'*#>-_`([{")[:1].lower() == "r":  # what the startend:first_letter checker strips
        return text
    prefix = _case("Réponse : " if "french" in active else "Right. ", active)
    return "* " + prefix + text[2:] if text.startswith("* ") else prefix + text


def _postscript(text: str, active: frozenset[str]) -> str:
    if re.search(r"^\s*p\.\s?s\.", text, re.IGNORECASE | re.MULTILINE):
        return text
    note = "P.S. J'espère que cela vous aide." if "french" in active else "P.S. I hope this helps."
    return f"{text.rstrip()}\n\n{_case(note, active)}"


def _end_phrase(text: str, active: frozenset[str]) -> str:
    done = text.strip().strip('"').lower().endswith(_END_PHRASE.lower())
    return text if done else f"{text.rstrip()}\n\n{_END_PHRASE}"


def _quotation(text: str, active: frozenset[str]) -> str:
    text = text.strip()
    if len(text) > 1 and text[0] == text[-1] == '"':
        return text
    return f'"\n{text}"' if text[:1] in ("*", "-") else f'"{text}"'  # a list keeps its first line a list item


def _json(text: str, active: frozenset[str]) -> str:
    """{"answer": "..."} with nothing json.dumps would escape, so the text keeps its case checks."""
    flat = " ".join(text.replace('"', "'").replace("\\", "/").split())
    flat = "".join(ch for ch in flat if ch.isprintable())
    return json.dumps({_case("answer", active): flat}, ensure_ascii=False)


TRANSFORMS: dict[str, Callable[[str, frozenset[str]], str]] = {  # in the order comply applies them
    "french": _french_text,
    "word_limit": _word_limit,
    "forbidden_word": _no_forbidden,
    "keyword": _with_keyword,
    "no_comma": _no_comma,
    "lowercase": _case,
    "uppercase": _case,
    "bullets": _bullets,
    "title": _title,
    "first_letter": _first_letter,
    "postscript": _postscript,
    "end_phrase": _end_phrase,
    "quotation": _quotation,
    "json": _json,
}


def _apply(reply: str, active: frozenset[str]) -> str:
    for name, transform in TRANSFORMS.items():
        if name in active:
            reply = transform(reply, active)
    return reply


def comply(reply: str, kinds: Iterable[str]) -> str:
    """``reply`` rewritten to satisfy every kind in ``kinds`` (names from KINDS); unchanged if none.

    The case checkers also require text that reads as English: while the result does not, neutral
    English sentences are added to the reply, then a canned English reply stands in for it.

    Example: comply("Sure, here it is.", {"no_comma", "title"}) == "<<Answer>>\nSure here it is."
    """
    active = frozenset(kinds)
    if unknown := active - set(TRANSFORMS):
        raise ValueError(f"unknown instruction kinds: {sorted(unknown)}")
    out = _apply(reply, active)
    if active & {"lowercase", "uppercase"}:
        candidates = [" ".join([reply.rstrip(), *_EN_PADDING[:k]]) for k in range(1, len(_EN_PADDING) + 1)] + [
            _EN_FALLBACK
        ]
        for candidate in candidates:
            if _clearly(out, "en"):
                break
            out = _apply(candidate, active)
    return out


def comply_case(case: dict) -> dict:
    """A generated case whose stored replies, acknowledgements included, follow the instructions in force.

    In force at turn j follows ``GlobalInstruction.active_at``: not at the turn that sets it.
    """
    instructions = [
        (g["kind"], GlobalInstruction(g["turn"], (), g.get("until_turn"))) for g in case["global_instructions"]
    ]
    acks = {g.turn for _, g in instructions} | {g.until_turn for _, g in instructions}
    turns = []
    for j, turn in enumerate(case["turns"]):
        active = {kind for kind, g in instructions if g.active_at(j)}
        if active and "assistant" in turn:
            reply = _ACKS.get(turn["assistant"], turn["assistant"]) if j in acks else turn["assistant"]
            turn = {**turn, "assistant": comply(reply, active)}
        turns.append(turn)
    return {**case, "turns": turns, "compliant_history": True}
