"""Evaluation arms: a registered strategy, or one of the paper's ablation rows (Table 4, D.3).

An arm builds the strategy for one conversation, so conditions that depend on the data (oracle
Instructional Memory, a withheld instruction, an added false positive) are real recognizers fed
with that conversation's labels.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from ..errors import UnknownStrategyError
from ..loading import Models, build_from_settings
from ..methods.base import Strategy
from ..methods.registry import available_strategies, get_strategy
from ..recognizer import GLOBAL, OTHER, REVOKE, Recognizer
from ..settings import Settings
from ..types import Recognition, Resolution
from .retrieval import NO_FOLLOW_UP


class LabelRecognizer(Recognizer):
    """Recognizer that answers from known labels: the oracle and simulated-error conditions of D.3."""

    def __init__(self, global_texts: set[str], revoke_texts: set[str] = frozenset()):
        self.global_texts, self.revoke_texts = set(global_texts), set(revoke_texts)

    def recognize(self, text: str) -> Recognition:
        if text in self.global_texts:
            return Recognition(label=GLOBAL, score=1.0, stage="oracle")
        if text in self.revoke_texts:
            return Recognition(label=REVOKE, score=1.0, stage="oracle")
        return Recognition(label=OTHER, score=0.0, stage="oracle")


@dataclass(frozen=True)
class Arm:
    name: str
    describe: str
    build: Callable[[Models, Settings, object], Strategy]  # (models, settings, case) -> strategy


def _rea_with(
    labels: Callable[[object], LabelRecognizer] | None = None, *, runtime: dict | None = None, **overrides
) -> Callable:
    """An arm of REA with some of its settings (``runtime``: serving settings) replaced."""

    def build(models: Models, settings: Settings, case) -> Strategy:
        config, served = replace(settings.rea, **overrides), replace(settings.runtime, **(runtime or {}))
        return get_strategy("rea").from_models(
            models, config, runtime=served, recognizer=labels(case) if labels else None
        )

    return build


def _oracle(case) -> LabelRecognizer:
    return LabelRecognizer(case.instruction_texts(), case.revoke_texts())


def _withheld(case) -> LabelRecognizer:
    return LabelRecognizer(set(), case.revoke_texts())


def _false_positive(case) -> LabelRecognizer:
    return LabelRecognizer(case.instruction_texts() | {case.first_ordinary_text()}, case.revoke_texts())


ABLATIONS: dict[str, Arm] = {
    arm.name: arm
    for arm in (
        Arm(
            "em-only",
            "EM only: every exchange compressed, no HCR, no IM",
            _rea_with(use_im=False, use_hcr=False, fixed_resolution=Resolution.COMPRESSED),
        ),
        Arm("em-hcr", "EM + HCR, no IM", _rea_with(use_im=False)),
        Arm("em-hcr-im", "EM + HCR + IM (full REA)", _rea_with()),
        Arm("oracle-im", "REA with oracle recognition", _rea_with(_oracle)),
        Arm("im-withheld", "REA with the true instructions withheld from IM (false negatives)", _rea_with(_withheld)),
        Arm(
            "im-false-positive",
            "REA with oracle IM plus one ordinary turn (a false positive)",
            _rea_with(_false_positive),
        ),
        Arm(
            "all-raw",
            "EM + IM, every reply kept raw (no HCR)",
            _rea_with(use_hcr=False, fixed_resolution=Resolution.RAW),
        ),
        Arm(
            "all-omitted",
            "EM + IM, every reply discarded (no HCR)",
            _rea_with(use_hcr=False, fixed_resolution=Resolution.OMIT),
        ),
        Arm(
            "rea-text-compressed",
            "REA with compressed replies as text even where a latent codec is loaded",
            _rea_with(reply_form="text"),
        ),
        Arm(
            "rea-latent-scorer",
            "REA scoring HCR with the codec's latent vectors instead of MiniLM (A.1)",
            _rea_with(scorer="latent", tau_low=None, tau_high=None),
        ),
        Arm(
            "rea-latest-only",
            "REA with only the latest exchange kept raw, no further working-memory window (the previous release)",
            _rea_with(recent_raw=1, recent_compressed=0),
        ),
        Arm(
            "rea-im-query",
            "REA with Instructional Memory also restated next to the query",
            _rea_with(im_placement="query"),
        ),
        Arm(
            "vanilla-cached",
            "vanilla with per-session KV prefix reuse (what a chat server does)",
            lambda models, settings, case: build_from_settings(
                "vanilla", models, settings.with_section("runtime", kv_reuse=True)
            ),
        ),
        Arm("rea-cached", "REA with per-session KV prefix reuse", _rea_with(runtime={"kv_reuse": True})),
        Arm(
            "rea-chronological",
            "REA with its kept exchanges in turn order (the paper's), not laid out for prefix reuse",
            _rea_with(layout="chronological"),
        ),
        Arm(
            "rea-chronological-cached",
            "REA in turn order with per-session KV prefix reuse",
            _rea_with(layout="chronological", runtime={"kv_reuse": True}),
        ),
        Arm(
            "rea-first-release",
            "REA with the first release's HCR (MiniLM units, 0.5/0.7, no follow-up awareness or recency)",
            _rea_with(
                scorer="minilm",
                tau_low=0.5,
                tau_high=0.7,
                neighbor_weight=0.0,
                text_compression="first_words",
                **NO_FOLLOW_UP,
            ),
        ),
    )
}


def get_arm(name: str) -> Arm:
    """A registered strategy name or an ablation name."""
    if name in ABLATIONS:
        return ABLATIONS[name]
    if name in available_strategies():
        return Arm(
            name, f"strategy {name}", lambda models, settings, case, _n=name: build_from_settings(_n, models, settings)
        )
    raise UnknownStrategyError(
        f"Unknown strategy or ablation {name!r}; choose from: {', '.join(available_strategies() + sorted(ABLATIONS))}"
    )
