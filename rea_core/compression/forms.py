"""Which compressed form REA uses: the one measured best on this backbone.

A codec folder may ship ``measurements.json`` next to its weights: what ``rea eval compression``
measured for each form of a compressed exchange on held-out sessions (share of the
omitted-to-raw NLL gap recovered, the same beyond the user-only control, positions). REA's default
compressed form follows it, so an app never shows latents that carry less than the text
stand-in. Pure functions of data: no torch, no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass

LATENT, TEXT = "latent", "text"
FORMS_FORMAT = "rea-codec-measurements"
# The eval's name of each text-compressed variant (REAConfig.text_compression -> measured form).
TEXT_MEASURE = {"first_words": "text", "extractive": "extractive"}


@dataclass(frozen=True)
class FormChoice:
    """The compressed form REA uses, its measured gap share (None if not measured) and why."""

    form: str  # LATENT or TEXT
    measure: str  # key in the record: "latent-encode", "latent-optimize-generate", "text", ...
    gap_share: float | None
    reason: str


def latent_measure(writer_key: str) -> str:
    """Record key of the latent form made by a writer ("encode", "optimize-generate", ...)."""
    return f"{LATENT}-{writer_key}"


def measured(record: dict | None, key: str) -> float | None:
    """Gap share recorded for ``key``, or None."""
    entry = ((record or {}).get("forms") or {}).get(key) or {}
    value = entry.get("gap_share")
    return float(value) if isinstance(value, (int, float)) else None


def choose_form(
    record: dict | None, *, writer_key: str, text_form: str = "first_words", forced: str = "auto"
) -> FormChoice:
    """The compressed form to use.

    Args:
        record: the codec's measurements (``measurements.json``), or None when none shipped.
        writer_key: how latents are made in this configuration ("encode", "optimize-generate", ...).
        text_form: ``REAConfig.text_compression`` of the text stand-in.
        forced: ``REAConfig.reply_form``: ``latent`` or ``text`` overrides the measurements; ``auto`` follows them.

    Returns:
        Latent when forced, or when its recorded gap share is at least the text form's; text when
        the text form measured better, or the latent form in use was never measured. Without any
        record the codec's latents are used (the behaviour before measurements were shipped).
    """
    if text_form not in TEXT_MEASURE:
        raise ValueError(f"text_form must be one of {', '.join(TEXT_MEASURE)}; got {text_form!r}")
    lat_key, txt_key = latent_measure(writer_key), TEXT_MEASURE[text_form]
    lat, txt = measured(record, lat_key), measured(record, txt_key)
    if forced == LATENT:
        return FormChoice(LATENT, lat_key, lat, "chosen in the configuration")
    if forced == TEXT:
        return FormChoice(TEXT, txt_key, txt, "chosen in the configuration")
    if record is None:
        return FormChoice(LATENT, lat_key, None, "no measurements shipped with the codec")
    if lat is None:
        return FormChoice(TEXT, txt_key, txt, f"the {lat_key} form was not measured on this backbone")
    if txt is None or lat >= txt:
        return FormChoice(
            LATENT, lat_key, lat, "measured best on this backbone" + (f" (text: {txt:.3f})" if txt is not None else "")
        )
    return FormChoice(TEXT, txt_key, txt, f"measured best on this backbone (latent: {lat:.3f})")


def measurements_record(results: dict, *, forms: dict[str, str], source: str) -> dict:
    """A ``measurements.json`` record from ``rea eval compression`` results.

    ``forms`` maps the eval's form names to record keys (e.g. {"latent": "latent-encode", "text": "text"}).
    """
    gap, beyond, tokens = (
        results.get("gap_recovered", {}),
        results.get("reply_gap_recovered", {}),
        results.get("mean_tokens", {}),
    )
    entries = {}
    for form, key in forms.items():
        if gap.get(form) is None:
            raise ValueError(f"the results hold no gap share for form {form!r}")
        entries[key] = {
            "gap_share": round(gap[form], 4),
            "beyond_user": None if beyond.get(form) is None else round(beyond[form], 4),
            "positions": round(tokens.get(form, 0.0), 1),
        }
    return {"format": FORMS_FORMAT, "version": 1, "source": source, "probes": results.get("probes"), "forms": entries}
