"""Verifiable instruction checks (REA paper, C.3: IAR checks global-instruction adherence).

IFEval's own checkers come from the maintained ``if-verifiable`` package (offline). Two of them need
NLTK's punkt data, which cannot be downloaded here; they are refused up front. One constraint of the
paper's H.1 case ("begin each response with the letter r") has no IFEval checker, so it is written
here as ``startend:first_letter``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable

NEEDS_PUNKT = {"length_constraints:number_sentences", "change_case:capital_word_frequency"}


def _first_letter(response: str, letter: str) -> bool:
    stripped = response.lstrip(" \t\n\"'*#>-_`([{")
    return bool(stripped) and stripped[0].lower() == letter.lower()


CUSTOM: dict[str, Callable[..., bool]] = {"startend:first_letter": _first_letter}


@lru_cache(maxsize=1)
def _ifeval_registry() -> dict:
    from if_verifiable.ifeval import instructions_registry  # slow import (datasets); only when checking

    return instructions_registry.INSTRUCTION_DICT


def known_instruction_ids() -> list[str]:
    return sorted((set(_ifeval_registry()) - NEEDS_PUNKT) | set(CUSTOM))


@dataclass(frozen=True)
class Check:
    """One verifiable constraint: an IFEval instruction id and its arguments."""

    instruction_id: str
    kwargs: dict = field(default_factory=dict)

    def validate(self) -> None:
        """Raise ValueError for an id no checker has, or arguments it rejects."""
        if self.instruction_id in CUSTOM:
            if self.instruction_id == "startend:first_letter" and not isinstance(self.kwargs.get("letter"), str):
                raise ValueError("startend:first_letter needs kwargs {'letter': str}")
            return
        if self.instruction_id in NEEDS_PUNKT:
            raise ValueError(f"{self.instruction_id} needs NLTK punkt data, which is not available offline")
        if self.instruction_id not in _ifeval_registry():
            raise ValueError(f"unknown instruction id {self.instruction_id!r}")
        self._build()

    def _build(self):
        checker = _ifeval_registry()[self.instruction_id](self.instruction_id)
        checker.build_description(**self.kwargs)
        return checker

    def passed(self, response: str) -> bool:
        if self.instruction_id in CUSTOM:
            return CUSTOM[self.instruction_id](response, **self.kwargs)
        return bool(response.strip()) and bool(self._build().check_following(response))
