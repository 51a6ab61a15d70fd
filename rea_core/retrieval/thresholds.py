"""HCR's two score cut-offs as one value, checked once where it is made.

    score >= high         -> raw
    low <= score < high   -> compressed
    score < low           -> omitted

Settings, a CLI option or the app's sliders make a ``Thresholds``; the decision (``retrieval.hcr``),
the strategy and the views take it as it is, so none of them checks or orders the pair again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Literal

from ..errors import ThresholdError


@dataclass(frozen=True)
class Thresholds:
    """(tau_low, tau_high): numbers in [0, 1] with ``low <= high`` (equal: nothing is compressed).

    Raises:
        ThresholdError: not numbers, outside [0, 1] (NaN included) or ``low > high``, naming which.
    """

    low: float
    high: float

    def __post_init__(self) -> None:
        low, high = _numbers(self.low, self.high)
        for name, value in (("tau_low", low), ("tau_high", high)):
            if not 0.0 <= value <= 1.0:  # also rejects NaN
                raise ThresholdError(f"{name} must lie in [0, 1], got {value}")
        if low > high:
            raise ThresholdError(f"tau_low ({low}) must not exceed tau_high ({high})")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)

    def __iter__(self) -> Iterator[float]:
        """``lo, hi = thresholds``: code that read the (tau_low, tau_high) pair reads this the same way."""
        return iter((self.low, self.high))

    @classmethod
    def ordered(cls, low: float, high: float, *, keep: Literal["low", "high"] = "low") -> Thresholds:
        """The pair a crossing move leaves: when ``low > high`` the other threshold meets the one kept, as
        a slider pushes the other (the app's sliders; a client may send them crossed)."""
        lo, hi = _numbers(low, high)
        if lo > hi:
            lo, hi = (lo, lo) if keep == "low" else (hi, hi)
        return cls(lo, hi)

    @classmethod
    def completed(cls, low: float | None, high: float | None, default: Thresholds) -> Thresholds:
        """``low`` and ``high`` where given, ``default``'s where None. One given alone pulls the other along
        so the pair stays ordered: a high threshold set below the default low one lowers it too."""
        lo, hi = _numbers(default.low if low is None else low, default.high if high is None else high)
        if low is None:
            lo = min(lo, hi)
        elif high is None:
            hi = max(hi, lo)
        return cls(lo, hi)


def _numbers(low: object, high: object) -> tuple[float, float]:
    try:
        return float(low), float(high)
    except (TypeError, ValueError) as exc:
        raise ThresholdError(f"HCR thresholds must be numbers, got tau_low={low!r}, tau_high={high!r}") from exc
