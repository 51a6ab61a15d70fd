import math

import numpy as np
import pytest

from rea_core import REAConfig, Resolution, ThresholdError, decide, plan_context, validate_thresholds


def resolutions(scores, lo=0.5, hi=0.7):
    return [d.resolution for d in plan_context(range(len(scores)), scores, tau_low=lo, tau_high=hi)]


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
    assert resolutions([-0.2, 0.0, 0.99], lo=0.0, hi=1.0) == [Resolution.OMIT, Resolution.COMPRESSED, Resolution.COMPRESSED]
    assert resolutions([1.0], lo=0.0, hi=1.0) == [Resolution.RAW]


def test_decide_is_vectorized_codes():
    codes = decide(np.array([0.1, 0.55, 0.9]), tau_low=0.5, tau_high=0.7)
    assert codes.tolist() == [0, 1, 2]


def test_decisions_carry_turn_and_score():
    d = plan_context([3, 7], [0.65, 0.2], tau_low=0.5, tau_high=0.7)
    assert (d[0].turn, d[0].score, d[0].resolution) == (3, 0.65, Resolution.COMPRESSED)
    assert d[1].to_dict() == {"turn": 7, "score": 0.2, "resolution": "omit"}


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
        validate_thresholds(lo, hi)
    with pytest.raises(ThresholdError):
        decide([0.5], tau_low=lo, tau_high=hi)


def test_config_rejects_misordered_thresholds():
    with pytest.raises(ThresholdError):
        REAConfig(tau_low=0.9, tau_high=0.1)
    assert (REAConfig(scorer="latent").tau_low, REAConfig(scorer="latent").tau_high) == (0.5, 0.7)  # the paper's, kept where nothing was calibrated


def test_mismatched_lengths():
    with pytest.raises(ValueError):
        plan_context([0, 1], [0.5], tau_low=0.5, tau_high=0.7)
