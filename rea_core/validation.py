"""One discipline for every file a user hands REA Studio: JSON decoded with a depth cap, text
checked for what breaks later, names held to printable characters, output paths checked first.

Why one module: each loader (conversation JSONL, LoCoMo JSON, saved sessions, label imports) used
to call ``json.loads`` and catch its own subset of errors. What slipped through failed far from
the file: a lone surrogate (``"\\ud800"``, legal JSON escape, illegal UTF-8) broke the tokenizer,
SQLite or the app's JSON responses; nesting past Python's stack raised ``RecursionError``. Here
each file is refused once, at the door, with one line that names it.

Example:
    >>> parse_json('{"id": "c"}', where="conv.jsonl:1")
    {'id': 'c'}
    >>> parse_json('"\\\\ud800"', where="conv.jsonl:2")
    Traceback (most recent call last):
    rea_core.errors.DataFormatError: conv.jsonl:2: a string holds a lone surrogate (an unpaired \\ud800-\\udfff escape)
"""

from __future__ import annotations

import json
import math
import os
import re
import tempfile
from pathlib import Path

import numpy as np

from .errors import DataFormatError

# No file REA writes or reads nests past 6 levels (a saved session's SeCom memory); 64 leaves room
# for data we do not know while staying far below Python's recursion limit (json recurses per level).
MAX_JSON_DEPTH = 64

# json_depth's window: its numpy work holds about 20 bytes per character of one window (5 MB here),
# whatever the file's size; a 10 MB file takes a few dozen windows, well under a second.
JSON_DEPTH_CHUNK = 1 << 18
_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPENS, _CLOSES = (ord("["), ord("{")), (ord("]"), ord("}"))
# Escapes that decode to a NUL or a surrogate: only these can put one in decoded text (the file itself
# was decoded as strict UTF-8, which has neither surrogates nor, inside a valid JSON string, a raw NUL).
_RISKY_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F][0-9a-fA-F]{2})")
_SURROGATE = re.compile("[\ud800-\udfff]")
_NUL = "\x00"
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")  # C0, DEL and C1: never part of a name


def read_text(path: str | os.PathLike[str], *, error: type[Exception] = DataFormatError) -> str:
    """A file's text as strict UTF-8, or ``error`` naming the file and why in words (no Python detail)."""
    path = Path(path)
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"Cannot read {path}: not UTF-8 text (byte {exc.start})") from None
    except IsADirectoryError:
        raise error(f"Cannot read {path}: a folder, not a file") from None
    except OSError as exc:
        raise error(f"Cannot read {path}: {exc.strerror or type(exc).__name__}") from None


def text_problem(value: str) -> str | None:
    """What makes ``value`` unusable as stored text, or None.

    NUL (PostgreSQL refuses it, C libraries cut at it) and lone surrogates (no UTF-8 form: the
    tokenizer, SQLite and every JSON response fail on them) are refused; line breaks, tabs and other
    characters a model may write are text.
    """
    if _NUL in value:
        return "a NUL character"
    if _SURROGATE.search(value):
        return "a lone surrogate (an unpaired \\ud800-\\udfff escape)"
    return None


def check_text(value: str, what: str, *, error: type[Exception] = DataFormatError) -> str:
    """``value`` if ``text_problem`` finds nothing; else ``error("<what> holds ...")``."""
    problem = text_problem(value)
    if problem:
        raise error(f"{what} holds {problem}")
    return value


def check_name(value: str, what: str, *, error: type[Exception] = DataFormatError) -> str:
    """A name (annotator, adjudicator, source): text without any control character, since names are
    shown on one line in tables, logs and terminals."""
    check_text(value, what, error=error)
    if _CONTROL.search(value):
        raise error(f"{what} holds a control character")
    return value


def json_type(value: object) -> str:
    """The JSON name of a decoded value's type, for messages a person reads ("null", not "NoneType")."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


def is_whole(value: object, low: int | None = None, high: int | None = None) -> bool:
    """Whether ``value`` is an int (not a bool) within [low, high]: the check every index read from a file needs."""
    return (
        isinstance(value, int)
        and not isinstance(value, bool)
        and (low is None or value >= low)
        and (high is None or value <= high)
    )


def is_text_list(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def spans_problem(spans: object, *, end_before: int, what: str) -> str | None:
    """What is wrong with a list of ``{"start", "end"}`` turn spans read from a file, or None: each
    within turns 0 .. end_before - 1, start <= end, in order and not overlapping."""
    if not isinstance(spans, list):
        return f"{what} must be a list"
    previous = -1
    for i, span in enumerate(spans):
        if not (isinstance(span, dict) and is_whole(span.get("start"), previous + 1) and is_whole(span.get("end"))):
            return f"{what} {i}: needs whole-number turns after the previous span's"
        if not span["start"] <= span["end"] < end_before:
            return f"{what} {i}: turns {span['start']}-{span['end']} are outside 0-{end_before - 1}"
        previous = span["end"]
    return None


def json_depth(text: str, *, chunk_chars: int = JSON_DEPTH_CHUNK) -> int:
    """How deep brackets nest in JSON ``text`` outside string literals (0 for a scalar).

    A streaming scan, no recursion: ``text`` is read in windows of ``chunk_chars`` characters, and
    whether the scan is inside a string and how many backslashes end the window carry over to the
    next, so the extra memory is that of one window, never a copy of the file (a regex pass that
    blanked the strings first held 1.2 GB for a 60 MB file). In each window, numpy finds the quotes
    no odd run of backslashes escapes, the brackets outside strings, and their running sum. For
    a file that is not valid JSON the number is still an upper bound of what ``json.loads`` would
    recurse into (it stops at the first character out of place: a stray backslash, an open string).
    """
    if chunk_chars < 1:
        raise ValueError(f"chunk_chars must be positive; got {chunk_chars}")
    if "[" not in text and "{" not in text:
        return 0
    depth = deepest = 0
    in_string, backslashes = False, 0  # carried across windows: inside a string; backslashes ending the last
    for start in range(0, len(text), chunk_chars):
        window = np.frombuffer(text[start : start + chunk_chars].encode("utf-8", "surrogatepass"), dtype=np.uint8)
        quotes = window == _QUOTE  # every other byte of a UTF-8 character is >= 0x80: no false matches
        if backslashes or _BACKSLASH in window:
            escaped, backslashes = _escaped(window, backslashes)
            quotes &= ~escaped
            del escaped
        brackets = np.isin(window, _OPENS + _CLOSES)
        if in_string or quotes.any():
            inside = (np.cumsum(quotes, dtype=np.int32) & 1).astype(bool)  # odd quotes so far in the window
            if in_string:
                inside = ~inside
            in_string = bool(inside[-1])  # the last byte is a quote (state after it) or no quote: either way
            brackets &= ~inside
            del inside
        found = window[brackets]
        if found.size:
            steps = np.cumsum(np.where(np.isin(found, _OPENS), 1, -1).astype(np.int32), dtype=np.int64)
            deepest = max(deepest, depth + int(steps.max()))
            depth += int(steps[-1])
    return deepest


def _escaped(window: np.ndarray, carried: int) -> tuple[np.ndarray, int]:
    """(which bytes of ``window`` follow an odd run of backslashes, the run ending it), where the
    window starts after ``carried`` backslashes of the previous one."""
    index = np.arange(window.size, dtype=np.int32)
    # The last byte that is no backslash at or before each position; -1 - carried where none is.
    other = np.maximum.accumulate(np.where(window == _BACKSLASH, np.int32(-1 - carried), index))
    run = index - other  # backslashes ending at each position (0 at any other byte)
    del index, other
    escaped = np.empty(window.size, dtype=bool)
    escaped[0] = carried % 2 == 1
    escaped[1:] = (run[:-1] & 1).astype(bool)
    return escaped, int(run[-1])


def json_values_bound(text: str) -> int:
    """At most how many values JSON ``text`` decodes to: every value but the first follows a
    ``,``, ``[`` or ``:`` (those inside strings only raise the bound). Counted in C, nothing decoded."""
    return 1 + text.count(",") + text.count("[") + text.count(":")


def _finite(literal: str) -> float:
    value = float(literal)
    if math.isinf(value):
        raise ValueError("a number out of range")
    return value


def _constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_json(
    text: str,
    *,
    where: str,
    max_depth: int = MAX_JSON_DEPTH,
    max_values: int | None = None,
    error: type[Exception] = DataFormatError,
) -> object:
    """Decode JSON ``text`` or raise ``error`` with one line starting with ``where``.

    Refused: invalid JSON, nesting deeper than ``max_depth`` (checked before decoding, so no
    ``RecursionError``), more than ``max_values`` values (checked before decoding: a 10 MB file of
    ``{}, {}, ...`` decodes to 200 MB of objects), numbers that are not finite floats (``NaN``,
    ``Infinity``, ``1e400``) or ints past Python's digit limit, and strings (keys too) holding NUL or
    a lone surrogate.
    """
    if max_values is not None and json_values_bound(text) > max_values:
        raise error(f"{where}: holds up to {json_values_bound(text):,} JSON values, over the limit of {max_values:,}")
    depth = json_depth(text)
    if depth > max_depth:
        raise error(f"{where}: nested {depth} levels deep, over the limit of {max_depth}")
    try:
        data = json.loads(text, parse_float=_finite, parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except (ValueError, RecursionError):  # a 5,000-digit int, 1e400, NaN
        raise error(f"{where}: not usable JSON (a number too long, out of range, NaN or Infinity)") from None
    if _RISKY_ESCAPE.search(text):
        check_strings(data, where=where, error=error)
    return data


def check_strings(data: object, *, where: str, error: type[Exception] = DataFormatError) -> None:
    """Raise ``error`` at the first string (key or value) in decoded JSON that ``text_problem`` refuses.

    Iterative, so depth never matters; the message names the key the string sits under.
    """
    stack: list[tuple[object, str]] = [(data, "")]
    while stack:
        value, key = stack.pop()
        if isinstance(value, str):
            problem = text_problem(value)
            if problem:
                raise error(f"{where}: {'the value of ' + repr(key[:40]) if key else 'a string'} holds {problem}")
        elif isinstance(value, dict):
            for k, v in value.items():
                problem = text_problem(k)
                if problem:
                    raise error(f"{where}: a key holds {problem}")
                stack.append((v, k))
        elif isinstance(value, list):
            stack.extend((v, key) for v in value)


def check_output(path: str | os.PathLike[str], *, folder: bool, error: type[Exception] = DataFormatError) -> Path:
    """Refuse an output path that cannot be written, before any work (a model load takes seconds).

    ``folder``: the command writes a folder of files (an evaluation run; an existing one is
    resumed), else one file (replaced if it exists). Nothing is created here: the nearest existing
    folder above ``path`` must be writable.

    Raises:
        error: the path is the wrong kind (a file where a folder goes, or a folder where a file goes)
            or no folder on its way can be written.
    """
    path = Path(path)
    if path.exists():
        if folder and not path.is_dir():
            raise error(f"--out {path}: exists and is not a folder")
        if not folder and path.is_dir():
            raise error(f"--out {path}: is a folder; give a file name")
        folder_there = path if folder else path.parent
    else:
        folder_there = path.absolute().parent
        while not folder_there.exists():
            folder_there = folder_there.parent
        if not folder_there.is_dir():
            raise error(f"--out {path}: {folder_there} is not a folder")
    try:  # a real probe: permission bits say nothing to root, or on a read-only mount
        tempfile.TemporaryFile(dir=folder_there).close()
        if path.is_file():
            open(path, "ab").close()  # appends nothing; fails where the file is read-only
    except OSError as exc:
        raise error(f"--out {path}: not writable ({exc.strerror or type(exc).__name__})") from None
    return path
