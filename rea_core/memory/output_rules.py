"""Output rules: the standing instructions in Instructional Memory that decoding can keep by itself.

Why: a small model reads "answer only in lowercase" in its IM prefix and still writes "I" and
"Sure": a case or a character rule changes every token of a reply, which the packaged 135M model
did not learn (BENCHMARKS, "The demo model"). A decoder can keep such a rule exactly by never
choosing a token that breaks it. REA knows its standing instructions explicitly (IM), so it can
hand the checkable ones to the decoder; a full-history chat has no such list.

Read here: rules a single token can break (letter case, a forbidden character), kept by a
vocabulary mask and a rewrite of the model's choice, and "exactly N bullet points", kept by where
the reply's lines break (``backends.decoding.RuleKeeper``). Everything else an instruction asks
stays the model's to follow from the prompt. Pure functions of IM's text.
"""

from __future__ import annotations

import re
from typing import Sequence

from ..types import OutputRule

LOWERCASE, UPPERCASE, NO_COMMA, BULLETS = "lowercase", "uppercase", "no_comma", "bullets"
RULE_KINDS = (LOWERCASE, UPPERCASE, NO_COMMA, BULLETS)

# Words that turn a phrase round ("no capital letters", "stop writing in lowercase").
_NEGATION = r"(?:no|not|never|without|avoid(?:ing)?|don'?t|do not|zero|nor)"
_LOWER_WORDS = (
    r"lower[\s-]?case|small letters|minuscules?|minúsculas?|minuscol[ei]|"
    r"kleinbuchstaben|kleingeschrieben|kleinschreibung"
)
_UPPER_WORDS = (
    r"upper[\s-]?case|all[\s-]?caps|capital letters|capitals|block letters|majuscules?|mayúsculas?|maiúsculas?|"
    r"maiuscol[ei]|gro(?:ß|ss)buchstaben"
)
_COMMA_WORDS = r"commas?|virgules?|kommas?|comas?|virgol[ae]|vírgulas?"

_LOWER = re.compile(rf"\b(?:{_LOWER_WORDS})\b", re.IGNORECASE)
_UPPER = re.compile(rf"\b(?:{_UPPER_WORDS})\b", re.IGNORECASE)
_COMMA = re.compile(rf"\b(?:{_COMMA_WORDS})\b", re.IGNORECASE)
_NEGATED = re.compile(rf"\b{_NEGATION}\b[^.,;!?]{{0,30}}$", re.IGNORECASE)  # a negation shortly before a word
_LIFTED = re.compile(r"\b(?:stop|quit|no longer|no more|cease)\b[^.,;!?]{0,30}$", re.IGNORECASE)  # a rule lifted
_NUMBERS = {w: i for i, w in enumerate("one two three four five six seven eight nine ten".split(), start=1)}
_BULLET_LIST = re.compile(
    r"\b(\d{1,2}|" + "|".join(_NUMBERS) + r")\s+(?:[\w-]+\s+)?"
    r"(?:bullet(?:\s*points?|s)\b|bulleted\s+(?:items|points)\b)",
    re.IGNORECASE,
)
_CAPITAL_FIRST = re.compile(r"\bcapitali[sz]e\b|\bfirst (?:letter|word)\b", re.IGNORECASE)


def _mentions(pattern: re.Pattern, text: str) -> tuple[bool, bool]:
    """(mentioned plainly, mentioned under a negation) for ``pattern`` in ``text``; a mention after
    "stop" or "no longer" counts as neither (it lifts a rule rather than sets one)."""
    plain = negated = False
    for match in pattern.finditer(text):
        before = text[: match.start()]
        if _LIFTED.search(before):
            continue
        if _NEGATED.search(before):
            negated = True
        else:
            plain = True
    return plain, negated


def bullet_count(instruction: str) -> int:
    """How many bullet points ``instruction`` asks every reply to have (0: none asked, or lifted).

    >>> bullet_count("From now on, answer with exactly 3 markdown bullet points starting with '* '.")
    3
    """
    match = _BULLET_LIST.search(instruction)
    if match is None or _LIFTED.search(instruction[: match.start()]) or _NEGATED.search(instruction[: match.start()]):
        return 0
    word = match.group(1).lower()
    count = int(word) if word.isdigit() else _NUMBERS[word]
    return count if 1 <= count <= 10 else 0


def rules_of(instruction: str) -> tuple[str, ...]:
    """The rule kinds one instruction asks for (none when it asks for nothing a token mask can keep).

    >>> rules_of("From now on, answer only in lowercase letters.")
    ('lowercase',)
    >>> rules_of("For the rest of our conversation, write in lowercase, no capital letters at all.")
    ('lowercase',)
    >>> rules_of("Please write all your replies in uppercase.")
    ('uppercase',)
    >>> rules_of("Never use a comma in your answers.")
    ('no_comma',)
    >>> rules_of("You can stop writing in lowercase now.")
    ()
    """
    if _CAPITAL_FIRST.search(instruction):  # "capitalize the first word": a case rule a mask cannot keep
        return ()
    lower, not_lower = _mentions(_LOWER, instruction)
    upper, not_upper = _mentions(_UPPER, instruction)
    comma_plain, comma_negated = _mentions(_COMMA, instruction)
    kinds: list[str] = []
    if (lower or not_upper) and not (upper or not_lower):
        kinds.append(LOWERCASE)
    elif upper and not (lower or not_upper):
        kinds.append(UPPERCASE)
    if comma_negated and not comma_plain:
        kinds.append(NO_COMMA)
    return tuple(kinds)


def output_rules(instructions: Sequence[str]) -> tuple[OutputRule, ...]:
    """The rules IM's ``instructions`` (oldest first) ask decoding to keep, one per kind.

    A later instruction wins a conflict: "lowercase" then "all capitals" keeps capitals only.
    """
    by_kind: dict[str, OutputRule] = {}
    for text in instructions:
        for kind in rules_of(text):
            if kind in (LOWERCASE, UPPERCASE):
                by_kind.pop(LOWERCASE, None)
                by_kind.pop(UPPERCASE, None)
            by_kind[kind] = OutputRule(kind=kind, source=text)
        if count := bullet_count(text):
            by_kind[BULLETS] = OutputRule(kind=BULLETS, source=text, count=count)
    return tuple(sorted(by_kind.values(), key=lambda r: RULE_KINDS.index(r.kind)))


def rules_note(rules: Sequence[OutputRule], *, enforced: bool) -> str:
    """What the prompt view says of the rules (plain text; views escape it)."""
    if not rules:
        return ""
    what = "; ".join(f"{r.label} (from \u201c{r.source}\u201d)" for r in rules)
    if enforced:
        return f"Kept while decoding, whatever the model prefers: {what}."
    return f"Not kept while decoding (this backend cannot mask tokens), left to the model: {what}."
