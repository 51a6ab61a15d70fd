"""When an exchange happened: one stored form, one prompt form.

Stored form: ISO 8601 to the minute, no zone (``2023-05-08T13:56``), the local time of whoever
sent the message; the same string round-trips through saved sessions and conversation JSONL.
Prompt form (``prompt_time``): ``Monday 8 May 2023 13:56``: weekday, day, month name, year, 24-hour
time, so "last Saturday" and "the week before 25 May" can be worked out from what the model reads.

Sources: a turn's ``"time"`` key in conversation JSONL (any ISO 8601 date or date-time), the
LoCoMo session header (``1:56 pm on 8 May, 2023``), the app's clock for live chat (``now_time``).
"""

from __future__ import annotations

from datetime import datetime

from .errors import DataFormatError

STORED_FORMAT = "%Y-%m-%dT%H:%M"
# Full weekday and month names: answers name them in full ("February, 2023"), and on SmolLM2's
# tokenizer they take as many tokens as "Wed" and "Feb" (BENCHMARKS, "Times with full names").
PROMPT_FORMAT = "%A {day} %B %Y %H:%M"  # {day}: the day of month without a leading zero, on every platform
LOCOMO_FORMATS = ("%I:%M %p on %d %B, %Y", "%d %B, %Y", "%d %B %Y")  # the release's form, then date-only ones


def _stored(moment: datetime) -> str:
    return moment.replace(tzinfo=None).strftime(STORED_FORMAT)


def parse_time(value: object, *, where: str) -> str:
    """A turn's ``"time"`` as the stored form; ``where`` prefixes the error.

    Accepts ISO 8601 dates and date-times (a zone, seconds and fractions are dropped: the stored
    form keeps the sender's wall clock to the minute).

    Raises:
        DataFormatError: not a string, or not an ISO 8601 date-time.
    """
    if not isinstance(value, str) or not value.strip():
        raise DataFormatError(f'{where}: "time" must be an ISO 8601 date-time string such as "2023-05-08T13:56"')
    try:
        return _stored(datetime.fromisoformat(value.strip()))
    except ValueError:
        raise DataFormatError(
            f'{where}: "time" {value[:40]!r} is not an ISO 8601 date-time such as "2023-05-08T13:56"'
        ) from None


def parse_locomo_time(value: object, *, where: str) -> str:
    """A LoCoMo ``session_N_date_time`` (``1:56 pm on 8 May, 2023``; a date alone or ISO 8601 also do)."""
    if not isinstance(value, str):
        raise DataFormatError(f"{where}: the session date must be a string like '1:56 pm on 8 May, 2023'")
    for form in LOCOMO_FORMATS:
        try:
            return _stored(datetime.strptime(value.strip(), form))
        except ValueError:
            continue
    try:
        return _stored(datetime.fromisoformat(value.strip()))
    except ValueError:
        raise DataFormatError(f"{where}: session date {value[:40]!r} is not like '1:56 pm on 8 May, 2023'") from None


def prompt_time(stored: str) -> str:
    """The stored form as the model reads it: ``Monday 8 May 2023 13:56``."""
    moment = datetime.strptime(stored, STORED_FORMAT)
    return moment.strftime(PROMPT_FORMAT).format(day=moment.day)


def now_time() -> str:
    """The local clock now, in the stored form: the time a live chat message was sent."""
    return _stored(datetime.now())
