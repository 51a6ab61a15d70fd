"""REA Studio app: REA and vanilla side by side, prompt views, live thresholds, retrieval inspector.

Run: ``rea app`` (or ``./scripts/run.sh``), then open http://127.0.0.1:7860. Importing this module
loads no model: ``build_demo`` takes an ``AppEngine`` built by the caller.
"""

from __future__ import annotations

import logging
from html import escape

import gradio as gr
from starlette.middleware import Middleware

from rea_core import Settings, default_thresholds
from rea_core.backends import OUTPUT_RULES, has

from .annotate_auth import password_check, sign_in_configured
from .state import REPO_ROOT, AppEngine
from .tabs.annotate.layout import build_annotate_tab
from .tabs.compare.layout import build_compare_tab
from .tabs.inspect.layout import build_inspect_tab
from .tabs.results.layout import build_results_tab
from .tabs.review.layout import build_review_tab
from .tempfiles import exit_on_sigterm, gradio_cache_folder, sweep_interval
from .thresholds import threshold_panel, wire_thresholds
from .user_sessions import UserBoundSessions

logger = logging.getLogger(__name__)
STATIC = REPO_ROOT / "static"
HEADER = """<div class="rea-header"><h1>REA Studio</h1><p class="rea-intro">Two chats on the same small \
model. <b>REA</b> keeps your standing instructions and recalls past turns by relevance; <b>vanilla</b> resends \
the whole chat. <span class="rea-intro-more">Click an example below, or give an instruction ("From now on, \
answer in lowercase.") and keep chatting: see which column still follows it.</span></p></div>"""
LEGEND = """<p class="rea-legend">Role-aware Heuristic Episodic Attention: global instructions kept in
<b>Instructional Memory</b>, past exchanges recalled <span class="rea-key rea-raw">raw</span>,
<span class="rea-key rea-compressed">compressed</span> or <span class="rea-key rea-omitted">omitted</span> by
<b>Heuristic Context Retrieval</b>; the latest exchanges stay in a \
<span class="rea-key rea-recent">recent</span> working-memory
window whatever their score. The two memory thresholds (the paper's τ_low and τ_high) are set in the panel below
the chats.</p>"""


def codec_line(engine: AppEngine) -> str:
    """What REA's compressed replies are by default on this backbone, its measured gap share and why."""
    models, strategy = engine.models, engine.strategy("rea")
    choice = strategy.reply_form
    if choice is None:
        return f"compressed replies: **text-compressed** ({models.codec_note or 'latent codec switched off'})"
    if choice.form == "latent":
        made = "fitted per reply" if strategy.config.codec_mode == "optimize" else "dual-LoRA codec"
        form = f"{models.codec.spec.n_latent} latent vectors** per reply ({made})"
    else:
        form = (
            f"text-compressed** (first {strategy.config.text_compress_words} words)"
            if choice.measure == "text"
            else "text-compressed** (extractive)"
        )
    share = f"measured gap share {choice.gap_share:.2f}" if choice.gap_share is not None else "gap share not measured"
    return f"compressed replies: **{form} · {share} · {choice.reason}"


def model_line(generator) -> str:
    """The model that answers: its name, the instruction-following adapter merged into it, and its decoding."""
    adapter = getattr(generator, "adapter", "")
    decoding = getattr(generator, "decoding", None)
    parts = [generator.name + (f" + instruction adapter {adapter}" if adapter else " (no instruction adapter)")]
    if decoding is not None:
        parts.append(f"decoding: {decoding.describe()}")
    return " · ".join(parts)


def rules_line(cfg, generator) -> str:
    """Whether REA keeps Instructional Memory's checkable instructions while decoding (output rules)."""
    if not cfg.output_rules:
        return "output rules: **off** (REA_OUTPUT_RULES=0): every instruction in IM is left to the model"
    if not has(generator, OUTPUT_RULES):
        return (
            "output rules: **not kept by this backend** (it cannot mask tokens): IM's instructions are left to "
            "the model"
        )
    return (
        "output rules: **on**: REA keeps the lowercase, capital-letter, no-comma and N-bullet instructions in its "
        "IM while decoding (the prompt view says which); vanilla has no IM, so its replies are the model's alone"
    )


def hcr_line(cfg) -> str:
    """The HCR scorer in use, what its score means and its calibrated thresholds."""
    lo, hi = default_thresholds(cfg.scorer)
    return (
        f"HCR scorer: **{cfg.scorer}** ({cfg.score_label}) · calibrated thresholds: leave out below {lo:.2f}, "
        f"send whole from {hi:.2f}"
        f" · working memory: up to the latest {cfg.recent_raw} "
        f"exchange(s) raw within {cfg.recent_raw_tokens} tokens, the"
        f" {cfg.recent_compressed} before them at least compressed · the {cfg.referent_top_k} "
        "best-scored exchange(s) below the lower threshold kept compressed as likely referents"
    )


def build_demo(engine: AppEngine) -> gr.Blocks:
    """The whole app as a ``gr.Blocks``; every browser session gets its own conversation state."""
    cfg = engine.config
    ttl = engine.limits.temp_file_ttl_s
    # Gradio's copies of uploads and downloads are aged out like our own (app.tempfiles).
    with gr.Blocks(title="REA Studio", delete_cache=(int(sweep_interval(ttl)), ttl)) as demo:
        gr.HTML(HEADER)
        with gr.Accordion("Details: model, memory scorer, calibration", open=False, elem_id="details"):
            gr.HTML(LEGEND)
            gr.Markdown(
                f"Backbone: **{escape(model_line(engine.models.generator), quote=False)}** · embedder: "
                f"**{engine.models.embedder.name}** · {escape(codec_line(engine), quote=False)}",
                elem_id="backbone",
            )
            gr.Markdown(hcr_line(cfg), elem_id="hcr-scorer")
            gr.Markdown(rules_line(cfg, engine.models.generator), elem_id="output-rules")
        with gr.Tabs() as tabs:
            with gr.Tab("Compare", id="compare"):
                init_compare, compare_outputs, tau_low, tau_high = build_compare_tab(engine)
            with gr.Tab("Inspect", id="inspect"):
                inspect_low, inspect_high, inspect_note = threshold_panel(cfg.tau_low, cfg.tau_high, prefix="inspect-")
                moved = wire_thresholds(inspect_low, inspect_high, inspect_note)  # Inspect re-decides after it
                list_marks, marks_outputs = build_inspect_tab(engine, inspect_low, inspect_high, moved)
            with gr.Tab("Annotate", id="annotate"):
                init_annotate, annotate_outputs = build_annotate_tab(engine)
            with gr.Tab("Review", id="review") as review_tab:
                init_review, review_outputs = build_review_tab(engine)
            with gr.Tab("Results", id="results"):
                build_results_tab(engine)
        ui_only = dict(api_visibility="private")  # page-load events serve the page, not API clients
        demo.load(init_compare, inputs=[tau_low, tau_high], outputs=compare_outputs, **ui_only)
        demo.load(list_marks, outputs=marks_outputs, **ui_only)
        demo.load(init_annotate, outputs=annotate_outputs, **ui_only)
        review_tab.select(init_review, outputs=review_outputs, **ui_only)  # shown fresh each time, after new labels

        def review_if_opened(request: gr.Request, profile: gr.OAuthProfile | None):
            return init_review(request, profile) if opened(request) == "review" else gr.skip()

        # A link may name the tab to open (?tab=review): signing in and out comes back to its tab.
        demo.load(opened_tab, outputs=tabs, **ui_only).then(review_if_opened, outputs=review_outputs, **ui_only)
    return demo


TAB_IDS = ("compare", "inspect", "annotate", "review", "results")


def opened(request: gr.Request | None) -> str | None:
    """The tab the page's address names (``?tab=annotate``), if it names one."""
    tab = request.query_params.get("tab") if request is not None else None
    return tab if tab in TAB_IDS else None


def opened_tab(request: gr.Request):
    tab = opened(request)
    return gr.Tabs(selected=tab) if tab else gr.skip()


def apply_recognizer_at_startup(engine: AppEngine) -> str:
    """Use the recognizer version the database marks active from the first request on; with the
    database down the app still starts, on the packaged recognizer, and says why in the log."""
    from rea_core import REAError

    from .recognizer_version import apply_active

    try:
        return apply_active(engine)
    except REAError as exc:
        logger.warning("recognizer version not applied at startup (packaged recognizer in use): %s", exc)
        return "packaged"


LOOPBACK, EVERY_INTERFACE = "127.0.0.1", "0.0.0.0"


def listen_host(host: str | None, *, sign_in: bool) -> tuple[str, str]:
    """Where the app listens, and why: the host given (``--host`` or ``GRADIO_SERVER_NAME``); else every
    interface where sign-in guards the writes (marks, labels), else loopback only, since without
    sign-in anyone who reaches the port may write marks."""
    if host:
        return host, "set by --host or GRADIO_SERVER_NAME"
    if sign_in:
        return EVERY_INTERFACE, "sign-in is configured (REA_AUTH, REA_AUTH_FILE or Hugging Face OAuth)"
    return LOOPBACK, "no sign-in is configured; --host 0.0.0.0 (or GRADIO_SERVER_NAME) listens on every interface"


def launch(engine: AppEngine, *, host: str | None = None, port: int = 7860, block: bool = True, **kwargs):
    """Queue and serve the app. Model calls share one queue slot group (``engine.concurrency`` at once).

    Limits (``engine.limits``): at most ``queue_size`` requests wait (the page then says "This
    application is currently busy. Please try again."), and uploads over ``max_upload_mb`` are
    refused by Gradio before they reach a handler. ``host`` None: ``listen_host`` picks it.
    """
    host, why = listen_host(host, sign_in=sign_in_configured())
    logger.warning("REA Studio listens on %s:%d (%s)", host, port, why)  # a warning: shown with no logging set up
    if block:  # a serving process: SIGTERM exits through atexit, which removes the download folders
        exit_on_sigterm()
    apply_recognizer_at_startup(engine)
    gradio_cache_folder()  # before the Blocks exist: they read GRADIO_TEMP_DIR when built
    demo = build_demo(engine)
    demo.queue(default_concurrency_limit=engine.concurrency, max_size=engine.limits.queue_size)
    kwargs.setdefault("max_file_size", engine.limits.max_upload_bytes)
    if "auth" in kwargs:  # Gradio's auth would put the public demo behind a login page
        raise TypeError("launch() takes no auth: accounts come from REA_AUTH or REA_AUTH_FILE")
    # Local accounts sign in on the Annotate and Review tabs; with sign-in on, a browser session is its
    # user's alone, and removed accounts are signed out (app.user_sessions). Read once here: a malformed
    # accounts file stops the start with one line.
    local = password_check() is not None
    app_kwargs = dict(kwargs.pop("app_kwargs", None) or {})
    app_kwargs["middleware"] = [*app_kwargs.get("middleware", ()), Middleware(UserBoundSessions, local=local)]
    demo.launch(
        server_name=host,
        server_port=port,
        css_paths=[STATIC / "rea.css"],
        prevent_thread_lock=not block,
        show_error=False,  # a handler's unforeseen exception: visitors see "Error", the server log the rest
        footer_links=["api"],
        head=f"<script>{(STATIC / 'annotate_keys.js').read_text(encoding='utf-8')}</script>",
        app_kwargs=app_kwargs,
        **kwargs,
    )
    return demo


def main() -> None:
    """``python -m app.main``: serve on GRADIO_SERVER_NAME / GRADIO_SERVER_PORT (default 127.0.0.1:7860,
    every interface where sign-in is configured: ``listen_host``)."""
    settings = Settings.from_env()
    engine = AppEngine.from_settings(settings)
    launch(engine, host=settings.app.host, port=settings.app.port)


if __name__ == "__main__":
    main()
