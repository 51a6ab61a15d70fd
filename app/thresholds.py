"""The "Memory thresholds" panel (REA's tau_low / tau_high as two sliders): kept ordered in the browser,
then the tab that holds it re-decides its views. Compare and Inspect each hold one panel of their own.

A drag sends ``input`` for every value it passes and ``release`` when let go; arrow keys and typing
send ``input``; the reset button sends ``release``. One browser-side step orders the pair on each of
them (no round trip: no late answer can write a stale value into a slider, and nothing covers the
sliders while the server works). Each tab chains its re-decide onto that step with ``.then``: one
event per tab, run one at a time, the latest pending move last, with the values the sliders hold by
then. (Two server events on the same slider trigger would replay each other: Gradio re-dispatches a
deferred trigger to every listener of it.)
"""

from __future__ import annotations

import gradio as gr

NOTE = "the lower threshold cannot exceed the upper one."
LOW_LABEL = "lower: leave out below"
HIGH_LABEL = "upper: send whole from"
EXPLAIN = (
    "REA scores every past turn against the new message, from 0 (unrelated) to 1 (on the same point). "
    "A turn scoring at least the upper threshold is sent whole, one between the two is shortened, one below "
    "the lower threshold is left out; the latest turns are sent whatever their score."
)

# (tau_low, tau_high, note, last ordered pair "lo,hi") -> the same, ordered. The slider that moved
# (it differs from the last pair) pushes the other; the note stays until the pair changes again.
ORDER_JS = f"""(lo, hi, note, last) => {{
  const keep = {{__type__: "update"}};
  const [plo, phi] = String(last || "").split(",").map(Number);
  if (lo > hi && lo !== plo)
    return [keep, lo, `Upper threshold raised to ${{lo.toFixed(2)}}: {NOTE}`, `${{lo}},${{lo}}`];
  if (lo > hi) return [hi, keep, `Lower threshold lowered to ${{hi.toFixed(2)}}: {NOTE}`, `${{hi}},${{hi}}`];
  return [keep, keep, lo === plo && hi === phi ? keep : "", `${{lo}},${{hi}}`];
}}"""


def wire_thresholds(tau_low: gr.Slider, tau_high: gr.Slider, note: gr.Markdown):
    """Keep the sliders ordered in the browser on every move; returns the event the tabs chain their
    re-decide onto (``.then``)."""
    last = gr.Textbox(f"{tau_low.value},{tau_high.value}", visible=False)  # the pair last ordered
    return gr.on(
        [tau_low.input, tau_low.release, tau_high.input, tau_high.release],
        None,
        inputs=[tau_low, tau_high, note, last],
        outputs=[tau_low, tau_high, note, last],
        js=ORDER_JS,
        trigger_mode="multiple",  # never deferred: a deferred trigger would be replayed to every listener
        queue=False,
        show_progress="hidden",
    )


def threshold_panel(tau_low: float, tau_high: float, *, prefix: str = "") -> tuple[gr.Slider, gr.Slider, gr.Markdown]:
    """A labelled "Memory thresholds" panel, laid out where it is called: one plain sentence, the two
    sliders and the note a crossing move leaves. Element ids ``{prefix}tau-low``, ``{prefix}tau-high``."""
    with gr.Group(elem_id=f"{prefix}thresholds", elem_classes="rea-thresholds"):
        gr.HTML(f'<div class="rea-thresholds-head"><b>Memory thresholds</b> <span>{EXPLAIN}</span></div>')
        with gr.Row():
            low = gr.Slider(0, 1, value=tau_low, step=0.01, label=LOW_LABEL, elem_id=f"{prefix}tau-low", min_width=160)
            high = gr.Slider(
                0, 1, value=tau_high, step=0.01, label=HIGH_LABEL, elem_id=f"{prefix}tau-high", min_width=160
            )
        note = gr.Markdown(elem_id=f"{prefix}tau-note")
    return low, high, note
