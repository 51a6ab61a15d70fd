"""Generated evaluation suites built offline from packaged conversation sets.

``make_adherence_suite``: conversations where global instructions (14 verifiable kinds, IFEval ids)
are set at varied turns, buried under distractor turns from ShareGPT and Chit Chat with topic
changes, sometimes revoked ("you can stop ..."), and probed at several depths (seed 000, 4.4-4.5).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..corpora import chitchat_conversations, is_clean_turn, sharegpt_sessions


@dataclass(frozen=True)
class InstructionKind:
    name: str
    phrasings: tuple[str, ...]  # how a user states it
    revoke: str  # how a user lifts it
    checks: tuple[dict, ...]


KINDS: tuple[InstructionKind, ...] = (
    InstructionKind("lowercase", ("From now on, answer only in lowercase letters.", "For the rest of our conversation, write everything in lowercase, no capital letters at all."),
                    "You can stop writing in lowercase now.", ({"instruction_id": "change_case:english_lowercase", "kwargs": {}},)),
    InstructionKind("uppercase", ("From now on, answer in all capital letters.", "Going forward, please write all your replies in uppercase."),
                    "You can stop writing in capital letters now.", ({"instruction_id": "change_case:english_capital", "kwargs": {}},)),
    InstructionKind("no_comma", ("From now on, do not use any commas in your replies.", "For the rest of this chat, never use a comma in your answers."),
                    "You can stop avoiding commas now.", ({"instruction_id": "punctuation:no_comma", "kwargs": {}},)),
    InstructionKind("end_phrase", ("From now on, end every reply with the exact phrase 'Is there anything else I can help with?'",
                                   "In all your future answers, finish with: Is there anything else I can help with?"),
                    "You can stop ending with that question now.", ({"instruction_id": "startend:end_checker", "kwargs": {"end_phrase": "Is there anything else I can help with?"}},)),
    InstructionKind("word_limit", ("From now on, keep every answer under 60 words.", "For the rest of our chat, answer in fewer than 60 words each time."),
                    "You no longer need to keep answers short.", ({"instruction_id": "length_constraints:number_words", "kwargs": {"num_words": 60, "relation": "less than"}},)),
    InstructionKind("forbidden_word", ("From now on, never use the word 'very' in your answers.", "Going forward, avoid the word 'very' in all your replies."),
                    "You can use the word very again.", ({"instruction_id": "keywords:forbidden_words", "kwargs": {"forbidden_words": ["very"]}},)),
    InstructionKind("keyword", ("From now on, mention the word 'banana' in every reply.", "In all your replies from now on, include the word banana."),
                    "You can stop mentioning banana now.", ({"instruction_id": "keywords:existence", "kwargs": {"keywords": ["banana"]}},)),
    InstructionKind("first_letter", ("From now on, begin each response with the letter r.", "For the rest of this conversation, start every reply with the letter R."),
                    "You can stop starting your replies with r.", ({"instruction_id": "startend:first_letter", "kwargs": {"letter": "r"}},)),
    InstructionKind("quotation", ("From now on, wrap your entire response in double quotation marks.", "Going forward, put every whole answer inside double quotes."),
                    "You can stop wrapping answers in quotes.", ({"instruction_id": "startend:quotation", "kwargs": {}},)),
    InstructionKind("title", ("From now on, give every answer a title in double angular brackets, like <<my title>>.", "In all your future replies, start with a title wrapped like <<title>>."),
                    "You can stop adding titles now.", ({"instruction_id": "detectable_format:title", "kwargs": {}},)),
    InstructionKind("postscript", ("From now on, end each reply with a postscript starting with P.S.", "For the rest of our chat, add a P.S. at the end of every answer."),
                    "You can stop adding a P.S. now.", ({"instruction_id": "detectable_content:postscript", "kwargs": {"postscript_marker": "P.S."}},)),
    InstructionKind("json", ("From now on, format every reply as valid JSON.", "Going forward, your whole answer must always be a JSON object."),
                    "You can stop answering in JSON.", ({"instruction_id": "detectable_format:json_format", "kwargs": {}},)),
    InstructionKind("french", ("From now on, reply only in French.", "For the rest of this conversation, always answer in French."),
                    "You can stop answering in French now.", ({"instruction_id": "language:response_language", "kwargs": {"language": "fr"}},)),
    InstructionKind("bullets", ("From now on, answer with exactly 3 markdown bullet points starting with '* '.", "In all your future replies, use exactly three bullet points like '* point'."),
                    "You can stop using bullet points now.", ({"instruction_id": "detectable_format:number_bullet_lists", "kwargs": {"num_bullets": 3}},)),
)


# A wording constraint and a framing constraint per conversation, minus pairs no reply can satisfy.
WORDING = {"lowercase", "uppercase", "no_comma", "forbidden_word", "keyword", "french", "word_limit"}
CONFLICTS = {frozenset(p) for p in [("lowercase", "postscript"), ("lowercase", "end_phrase"), ("uppercase", "end_phrase"),
                                     ("no_comma", "json"), ("keyword", "french"), ("french", "end_phrase"), ("french", "json")]}


def _compatible_pair(rng: random.Random) -> list[InstructionKind]:
    wording = [k for k in KINDS if k.name in WORDING]
    framing = [k for k in KINDS if k.name not in WORDING]
    while True:
        pair = [rng.choice(wording), rng.choice(framing)]
        if frozenset(k.name for k in pair) not in CONFLICTS:
            rng.shuffle(pair)
            return pair


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


def make_adherence_suite(n: int = 20, turns: int = 24, seed: int = 0, *, probe_depths: tuple[int, ...] = (2, 5, 10, 15, 20)) -> list[dict]:
    """``n`` conversations of ``turns`` turns in the adherence file format (README, "Evaluations")."""
    if turns < 6:
        raise ValueError("an adherence conversation needs at least 6 turns")
    rng = random.Random(seed)
    pool = _distractor_pool(rng)
    stream = (turn for block in pool * 50 for turn in block)  # topic changes at block borders
    suite = []
    for i in range(n):
        kinds = _compatible_pair(rng)
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
            {"turn": first, "kind": kinds[0].name, "checks": list(kinds[0].checks), **({"until_turn": revoke_at} if revoke_at else {})},
            {"turn": second, "kind": kinds[1].name, "checks": list(kinds[1].checks)},
        ]
        suite.append({"id": f"adh-{seed}-{i:03d}", "turns": conversation_turns, "global_instructions": global_instructions, "probe_turns": probes})
    return suite
