import math

import numpy as np
import pytest

from rea_core import REAConfig, Resolution, Thresholds
from rea_core.errors import ThresholdError
from rea_core.retrieval.hcr import decide, plan_context


def resolutions(scores, lo=0.5, hi=0.7):
    return [d.resolution for d in plan_context(range(len(scores)), scores, Thresholds(lo, hi))]


def test_default_boundaries_are_inclusive_at_each_threshold():
    got = resolutions([0.0, 0.4999, 0.5, 0.6999, 0.7, 1.0])
    assert got == [
        Resolution.OMIT,
        Resolution.OMIT,
        Resolution.COMPRESSED,  # score == tau_low: compressed
        Resolution.COMPRESSED,
        Resolution.RAW,  # score == tau_high: raw
        Resolution.RAW,
    ]


def test_equal_thresholds_never_compress():
    got = resolutions([0.59, 0.6, 0.61], lo=0.6, hi=0.6)
    assert got == [Resolution.OMIT, Resolution.RAW, Resolution.RAW]


def test_extreme_thresholds():
    assert resolutions([-0.2, 0.0, 0.99], lo=0.0, hi=1.0) == [
        Resolution.OMIT,
        Resolution.COMPRESSED,
        Resolution.COMPRESSED,
    ]
    assert resolutions([1.0], lo=0.0, hi=1.0) == [Resolution.RAW]


def test_decide_is_vectorized_codes():
    codes = decide(np.array([0.1, 0.55, 0.9]), Thresholds(0.5, 0.7))
    assert codes.tolist() == [0, 1, 2]


def test_decisions_carry_turn_and_score():
    d = plan_context([3, 7], [0.65, 0.2], Thresholds(0.5, 0.7))
    assert (d[0].turn, d[0].score, d[0].resolution) == (3, 0.65, Resolution.COMPRESSED)
    assert d[1].to_dict() == {"turn": 7, "score": 0.2, "resolution": "omit", "reason": "score"}


@pytest.mark.parametrize(
    "lo, hi, message",
    [
        (0.8, 0.7, "must not exceed"),
        (-0.1, 0.7, "tau_low must lie in [0, 1]"),
        (0.5, 1.5, "tau_high must lie in [0, 1]"),
        (math.nan, 0.7, "tau_low must lie in [0, 1]"),
        ("x", 0.7, "must be numbers"),
    ],
)
def test_bad_thresholds_are_rejected_clearly(lo, hi, message):
    with pytest.raises(ThresholdError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Thresholds(lo, hi)


def test_config_rejects_misordered_thresholds():
    with pytest.raises(ThresholdError):
        REAConfig(tau_low=0.9, tau_high=0.1)
    assert (REAConfig(scorer="latent").tau_low, REAConfig(scorer="latent").tau_high) == (
        0.5,
        0.7,
    )  # the paper's, kept where nothing was calibrated


def test_mismatched_lengths():
    with pytest.raises(ValueError):
        plan_context([0, 1], [0.5], Thresholds(0.5, 0.7))


# -- the working-memory window (REA paper, appendix H.3: what the next reply depends on) ----------


def _window_case(tau_low: float, tau_high: float):
    from rea_core.retrieval.hcr import keep_window

    scores = [0.9, 0.1, 0.05, 0.8, 0.02, 0.01, 0.03]  # the latest three score far below any threshold
    decisions = plan_context(list(range(7)), scores, Thresholds(tau_low, tau_high))
    return keep_window(decisions, [50, 60, 70], raw_tokens=200, band=2)


@pytest.mark.parametrize("tau_low,tau_high", [(0.0, 0.0), (0.2, 0.36), (0.5, 0.7), (0.99, 1.0), (1.0, 1.0)])
def test_the_window_keeps_its_exchanges_whatever_the_thresholds(tau_low, tau_high):
    from rea_core import Reason

    decided = _window_case(tau_low, tau_high)
    assert [d.resolution for d in decided[-3:]] == [Resolution.RAW] * 3
    assert all(d.reason is Reason.RECENT for d in decided[-3:])
    assert all(d.resolution is not Resolution.OMIT for d in decided[2:4])  # the band: at least compressed
    assert [d.score for d in decided] == [0.9, 0.1, 0.05, 0.8, 0.02, 0.01, 0.03]  # scores kept for the sliders


def test_the_raw_window_is_bounded_by_tokens_not_only_by_count():
    from rea_core.retrieval.hcr import window_size

    assert window_size([50, 60, 70], 200) == 3
    assert window_size([150, 60, 70], 200) == 2  # the third latest would pass the budget
    assert window_size([10, 10, 900], 200) == 1  # the latest is always in, whatever its size
    assert window_size([], 200) == 0  # recent_raw=0: no window


def test_a_score_above_the_band_floor_keeps_its_own_reason():
    from rea_core import Reason

    decided = _window_case(0.5, 0.7)
    assert (
        decided[3].resolution is Resolution.RAW and decided[3].reason is Reason.SCORE
    )  # 0.8 clears tau_high: raw by its score
    assert decided[2].reason is Reason.RECENT_BAND


def test_a_history_shorter_than_the_window_is_all_in_it():
    from rea_core.memory.episodic import Exchange
    from rea_core.retrieval.hcr import recent_tokens

    words = lambda text: len(text.split())  # noqa: E731  (a token count: one a word)
    two = [Exchange(0, "one two", "three"), Exchange(1, "four", "five six")]
    assert recent_tokens(two, 3, words) == [3, 3]  # both, oldest first (not only the latest)
    assert (
        recent_tokens(two, 1, words) == [3]
        and recent_tokens(two, 0, words) == []
        and recent_tokens([], 3, words) == []
    )


def test_a_bare_instruction_held_in_im_is_not_repeated_by_the_window_or_the_referents():
    from rea_core import Reason
    from rea_core.memory.episodic import Exchange
    from rea_core.memory.instructional import InstructionalMemory
    from rea_core.retrieval.hcr import hold_in_im, keep_best, keep_window
    from rea_core.types import InstructionEntry

    users = ["hi there", "From now on,  answer in LOWERCASE.", "what is rust", "ok", "Use British spelling. Why?"]
    exchanges = [Exchange(i, user, "fine") for i, user in enumerate(users)]
    im = InstructionalMemory(
        entries=[
            InstructionEntry("From now on, answer in lowercase.", turn=1),
            InstructionEntry("Use British spelling.", turn=4),  # the message also asks something: not bare
            InstructionEntry("Be brief.", turn=-1),  # added by hand
            InstructionEntry("hi there", turn=7),  # given at a turn not stored (yet)
        ]
    )
    assert im.bare_turns(exchanges) == [1]  # case and spacing aside
    decisions = plan_context(list(range(5)), [0.05, 0.9, 0.1, 0.02, 0.04], Thresholds(0.5, 0.7))
    held = hold_in_im(decisions, im.bare_turns(exchanges))
    assert held[1].resolution is Resolution.OMIT and held[1].reason is Reason.IN_IM
    assert held[1].score == 0.9  # its score stays for views
    kept = keep_best(keep_window(held, [40, 40, 40], raw_tokens=400, band=1), 1)
    assert [d.resolution for d in kept[2:]] == [Resolution.RAW] * 3
    # in the band's place, still not repeated; the referent slot goes to an exchange IM does not hold,
    # although the held one scores higher
    assert kept[1].resolution is Resolution.OMIT and kept[1].reason is Reason.IN_IM
    assert kept[0].resolution is Resolution.COMPRESSED and kept[0].reason is Reason.REFERENT
    assert hold_in_im(decisions, []) == decisions


def _budget_case():
    from rea_core import Decision, Reason

    # scores, resolutions, reasons of five exchanges; the last is the raw working-memory window
    spec = [
        (0.9, Resolution.RAW, Reason.SCORE),
        (0.3, Resolution.RAW, Reason.SCORE),
        (0.4, Resolution.COMPRESSED, Reason.SCORE),
        (0.1, Resolution.COMPRESSED, Reason.REFERENT),
        (0.0, Resolution.RAW, Reason.RECENT),
    ]
    decisions = tuple(Decision(turn=i, score=s, resolution=r, reason=why) for i, (s, r, why) in enumerate(spec))
    tokens = {Resolution.RAW: 100, Resolution.COMPRESSED: 30, Resolution.OMIT: 0}
    return decisions, lambda i, resolution: tokens[resolution]


def test_fit_budget_demotes_lowest_scored_raw_first_then_omits():
    from rea_core import Reason
    from rea_core.retrieval.hcr import fit_budget

    decisions, cost = _budget_case()
    same, left = fit_budget(decisions, cost, 0)
    assert same == decisions and left == 0
    # 70 tokens over: the lowest-scored raw exchange (turn 1) becomes compressed, nothing else moves
    out, left = fit_budget(decisions, cost, 70)
    assert [d.resolution for d in out] == [
        Resolution.RAW,
        Resolution.COMPRESSED,
        Resolution.COMPRESSED,
        Resolution.COMPRESSED,
        Resolution.RAW,
    ]
    assert out[1].reason is Reason.BUDGET and left == 0
    # 200 over: both raw ones compressed (140), then the lowest-scored compressed one omitted (30), then the next
    out, left = fit_budget(decisions, cost, 200)
    assert [d.resolution for d in out[:4]] == [
        Resolution.COMPRESSED,
        Resolution.OMIT,
        Resolution.COMPRESSED,
        Resolution.OMIT,
    ]
    assert left <= 0 and all(d.reason is Reason.BUDGET for d in (out[0], out[1], out[3]))
    # the raw window is never demoted, even when the rest cannot cover the excess
    out, left = fit_budget(decisions, cost, 10_000)
    assert out[4] == decisions[4] and left == 10_000 - 2 * 70 - 4 * 30
    assert all(d.resolution is Resolution.OMIT for d in out[:4])


# -- the pair as one value -------------------------------------------------------------------------


def test_crossed_thresholds_are_ordered_by_moving_the_other_one():
    assert Thresholds.ordered(0.8, 0.6) == Thresholds(0.8, 0.8)  # the low one kept: the high one raised
    assert Thresholds.ordered(0.8, 0.6, keep="high") == Thresholds(0.6, 0.6)
    assert Thresholds.ordered(0.4, 0.6) == Thresholds(0.4, 0.6)
    with pytest.raises(ThresholdError, match="tau_high must lie"):
        Thresholds.ordered(0.4, 1.5)


def test_one_threshold_given_pulls_the_default_other_along():
    default = Thresholds(0.2, 0.36)
    assert Thresholds.completed(None, None, default) == default
    assert Thresholds.completed(None, 0.1, default) == Thresholds(0.1, 0.1)
    assert Thresholds.completed(0.5, None, default) == Thresholds(0.5, 0.5)
    assert Thresholds.completed(0.3, None, default) == Thresholds(0.3, 0.36)
    with pytest.raises(ThresholdError, match="must not exceed"):
        Thresholds.completed(0.9, 0.1, default)


def test_thresholds_read_as_the_pair_they_replace():
    lo, hi = Thresholds(0, 1)
    assert (lo, hi) == (0.0, 1.0) and isinstance(lo, float)
    assert REAConfig(tau_low=0.3, tau_high=0.6).thresholds == Thresholds(0.3, 0.6)
    assert REAConfig().with_thresholds(Thresholds(0.1, 0.2)).tau_high == 0.2
