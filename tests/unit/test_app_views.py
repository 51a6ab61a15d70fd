"""The app's views: escaping and layout of the prompt view, threshold ordering. No model."""

from app.views.memory import im_table
from app.views.prompt import render_prompt_view
from rea_core import Decision, Resolution, Thresholds
from rea_core.memory.episodic import Exchange
from rea_core.memory.instructional import InstructionalMemory
from rea_core.reconstruction import build_prompt_plan
from rea_core.types import InstructionEntry

XSS = "<img src=x onerror=alert(1)>"


def plan_with(user_texts, resolutions, query=XSS, instructions=(XSS,)):
    exchanges = [Exchange(i, u, f"reply {i} {XSS}") for i, u in enumerate(user_texts)]
    decisions = [Decision(i, 0.1 * i, r) for i, r in enumerate(resolutions)]
    return build_prompt_plan(
        query=query,
        exchanges=exchanges,
        decisions=decisions,
        instructions=instructions,
        count_tokens=lambda t: len(t.split()),
        system_prompt="sys",
    )


def test_every_text_is_escaped():
    html = render_prompt_view(
        plan_with([XSS, XSS, XSS], [Resolution.RAW, Resolution.COMPRESSED, Resolution.OMIT]), prompt_tokens=99
    )
    assert "<img" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert 'title="reply 1 &lt;img src=x onerror=alert(1)&gt;"' in html  # the chip's hover text


def test_blocks_in_order_with_omitted_runs_collapsed():
    plan = plan_with(["a", "b", "c", "d"], [Resolution.OMIT, Resolution.OMIT, Resolution.COMPRESSED, Resolution.OMIT])
    html = render_prompt_view(plan, prompt_tokens=50, truncated_tokens=7)
    order = [
        html.index(k)
        for k in (
            "rea-system",
            "rea-instructions",
            "2 omitted exchanges · turns 0, 1",
            "rea-compressed",
            "1 omitted exchange · turns 3",
            "rea-query",
        )
    ]
    assert order == sorted(order)
    assert "text-compressed" in html and "7 oldest tokens cut" in html
    assert "budget" not in html  # a plan made without a budget says none


def test_empty_view_and_im_table_escape():
    assert "No turn yet" in render_prompt_view(None)
    im = InstructionalMemory(entries=[InstructionEntry(XSS, 0, "user", "manual", 1.0)])
    html = im_table(im, enabled=True)
    assert "<img" not in html and "&lt;img" in html
    assert "keeps no Instructional Memory" in im_table(None, enabled=False)


def test_thresholds_stay_ordered():
    """What a client that sends the sliders crossed gets: the moved one kept, the other pushed (the
    browser's ORDER_JS does the same and says so)."""
    assert tuple(Thresholds.ordered(0.4, 0.6)) == (0.4, 0.6)
    assert tuple(Thresholds.ordered(0.8, 0.6, keep="low")) == (0.8, 0.8)
    assert tuple(Thresholds.ordered(0.8, 0.6, keep="high")) == (0.6, 0.6)


def test_prompt_view_says_where_token_counts_come_from():
    plan = plan_with(["a"], [Resolution.RAW])
    assert "Token counts" not in render_prompt_view(plan, prompt_tokens=9)  # a local tokenizer: exact, nothing to say
    assert "usage figure" in render_prompt_view(plan, prompt_tokens=9, token_source="server usage")
    assert "estimated" in render_prompt_view(plan, prompt_tokens=9, token_source="estimate")


def test_stats_line_reports_first_token_and_kv_reuse():
    from app.views.memory import stats_line

    entry = {
        "prompt_tokens": 120,
        "latency_s": 2.5,
        "ttft_s": 0.4,
        "decisions": {"raw": 2, "compressed": 1, "omit": 3},
        "reused_tokens": 100,
        "cache_bytes": 3 * 2**20,
        "token_source": "server usage",
        "cache_note": "window slid",
    }
    line = stats_line(entry)
    assert "prompt 120 tok (server usage)" in line and "first token 0.40 s" in line and "total 2.50 s" in line
    assert "KV reused 100/120 tok, cache 3.0 MB" in line and "window slid" in line


def test_the_window_is_its_own_recent_block_with_its_token_count_and_rules_are_named():
    from rea_core import Reason
    from rea_core.retrieval.hcr import keep_best, keep_window, plan_context

    exchanges = [Exchange(i, f"question {i}", f"answer {i} {XSS}") for i in range(6)]
    decisions = plan_context(list(range(6)), [0.1, 0.05, 0.02, 0.03, 0.01, 0.02], Thresholds(0.5, 0.7))
    decisions = keep_best(keep_window(decisions, [4, 4], raw_tokens=100, band=1), 1)
    plan = build_prompt_plan(
        query="and now?",
        exchanges=exchanges,
        decisions=decisions,
        instructions=(),
        count_tokens=lambda t: len(t.split()),
    )
    html = render_prompt_view(plan, prompt_tokens=40)
    window_tokens = sum(s.tokens for s in plan.exchanges() if s.reason is Reason.RECENT)
    assert window_tokens == 14  # turns 4 and 5: 2 words of user text + 5 of reply each
    assert f'recent · working memory · turns 4-5</span><span class="rea-tok">{window_tokens} tok' in html
    assert html.index("rea-recent") < html.index("rea-query")
    assert "kept by rule: recent band" in html  # turn 3, just before the window
    assert "kept by rule: likely referent" in html  # turn 0, the best-scored omitted exchange
    assert "<img" not in html


def test_a_long_message_held_in_instructional_memory_is_printed_once():
    """A 20,000-character message recognized as an instruction is in IM and is the query: shown once."""
    long = "Please answer in lowercase from now on. " + "The quick brown fox jumps over the lazy dog. " * 450
    html = render_prompt_view(plan_with([], [], query=long, instructions=(long,)))
    assert len(long) > 20_000 and html.count("lazy dog") == 450 + long[:300].count("lazy dog")
    assert "the whole 20,290-character message is in the instructional memory block above" in html
    short = render_prompt_view(plan_with([], [], query="Be brief.", instructions=("Be brief.",)))
    assert short.count("Be brief.") == 2  # a short one reads better in full, in both places


def test_every_exchange_says_why_it_is_where_it_is():
    from rea_core import Reason
    from rea_core.retrieval.hcr import keep_best, keep_window, plan_context

    exchanges = [Exchange(i, f"question {i}", f"answer {i}") for i in range(5)]
    decisions = plan_context(list(range(5)), [0.8, 0.5, 0.1, 0.05, 0.02], Thresholds(0.3, 0.7))
    decisions = keep_best(keep_window(decisions, [4], raw_tokens=100, band=0), 1)
    assert [d.reason for d in decisions] == [Reason.SCORE, Reason.SCORE, Reason.REFERENT, Reason.SCORE, Reason.RECENT]
    plan = build_prompt_plan(
        query="q", exchanges=exchanges, decisions=decisions, instructions=(), count_tokens=lambda t: len(t.split())
    )
    html = render_prompt_view(plan)
    for why in (
        "kept by score: at or above tau_high",  # turn 0
        "kept by score: between tau_low and tau_high",  # turn 1
        "kept by rule: likely referent",  # turn 2, below tau_low
        "omitted by score: below tau_low",  # turn 3, in the collapsed omitted list
        "kept by rule: recent",  # turn 4, the window
    ):
        assert why in html


def test_retrieval_chart_tells_score_from_rule_and_escapes_hover_text_once():
    from app.views.charts import retrieval_chart
    from app.views.reasons import reason_label
    from rea_core import Reason

    exchanges = [Exchange(0, 'say "hi" & <b>bye</b>', "ok"), Exchange(1, "b", "c"), Exchange(2, "d", "e")]
    decisions = (
        Decision(0, 0.1, Resolution.COMPRESSED, Reason.REFERENT),
        Decision(1, 0.5, Resolution.COMPRESSED),
        Decision(2, 0.05, Resolution.RAW, Reason.RECENT),
    )
    fig = retrieval_chart(decisions, exchanges, tau_low=0.3, tau_high=0.7, query="q", score_label="hybrid score")
    names = {t.name for t in fig.data if len(t.x)}
    assert names == {"compressed · kept by rule", "compressed · kept by score", "raw · kept by rule"}
    (hover,) = [h for t in fig.data for h in t.hovertext if "turn 0" in h]
    # plotly reads hover text as HTML with a few entities: &amp; and &lt; once, quotes left as they are
    assert 'say "hi" &amp; &lt;b&gt;bye&lt;/b&gt;' in hover and "&quot;" not in hover
    assert "kept by rule: likely referent" in hover
    assert fig.layout.yaxis.title.text == "score" and "hybrid score" not in fig.layout.title.text  # no formula
    assert "from 0 (unrelated) to 1 (on the same point)" in fig.layout.title.text  # the score in plain words
    assert reason_label(Resolution.RAW, Reason.SCORE, thresholded=False) == "kept by retrieval rank"
    assert reason_label(Resolution.OMIT, Reason.FIXED) == "omitted by the strategy's fixed policy"


def test_budget_demotion_is_explained_not_called_a_fixed_policy():
    from app.views.reasons import reason_label, reason_text
    from rea_core import Reason, Resolution

    assert reason_label(Resolution.COMPRESSED, Reason.BUDGET) == "compressed to fit the model's window"
    assert reason_label(Resolution.OMIT, Reason.BUDGET) == "omitted to fit the model's window"
    assert "Instructional Memory" in reason_text(Resolution.OMIT, Reason.BUDGET)


def test_an_exchange_held_in_im_is_said_to_be_not_repeated_in_the_views():
    from app.views.charts import retrieval_chart
    from app.views.prompt import render_prompt_view
    from app.views.reasons import reason_label, reason_text
    from rea_core import Reason, Resolution
    from rea_core.reconstruction import build_prompt_plan

    exchanges = [Exchange(0, "From now on, answer in <lowercase>.", "Understood."), Exchange(1, "hi", "hello")]
    decisions = (Decision(0, 0.6, Resolution.OMIT, Reason.IN_IM), Decision(1, 0.1, Resolution.RAW, Reason.RECENT))
    assert reason_label(Resolution.OMIT, Reason.IN_IM) == "not repeated: held in Instructional Memory"
    assert "reads it verbatim" in reason_text(Resolution.OMIT, Reason.IN_IM)
    plan = build_prompt_plan(
        query="and?",
        exchanges=exchanges,
        decisions=decisions,
        instructions=["From now on, answer in <lowercase>."],
        count_tokens=lambda t: len(t.split()),
    )
    html = render_prompt_view(plan)
    assert "not repeated: held in Instructional Memory" in html and "<lowercase>" not in html  # escaped
    fig = retrieval_chart(decisions, exchanges, tau_low=0.3, tau_high=0.7, query="q", score_label="hybrid score")
    assert {t.name for t in fig.data if len(t.x)} == {"held in Instructional Memory", "raw · kept by rule"}


def test_a_replys_stats_are_one_short_plain_line_with_the_details_on_hover():
    from app.views.memory import short_stats, stats_html

    entry = {
        "prompt_tokens": 1234,
        "latency_s": 2.5,
        "ttft_s": 0.42,
        "decisions": {"raw": 2, "compressed": 1, "omit": 3},
        "reused_tokens": 46,
        "cache_bytes": 11 * 2**20,
        "cache_note": "nothing cached for this session: full prefill",
        "cut_at_tokens": 128,
    }
    short = short_stats(entry)
    assert short == (
        "cut at 128 tokens · read 1,234 tokens · first word 0.4 s · past turns: 2 whole, 1 shortened, 3 left out"
    )
    assert "KV" not in short and "cache" not in short
    html = stats_html({**entry, "cache_note": "<b>x</b>"})
    assert 'title="cut at 128 tokens | prompt 1234 tok' in html and "&lt;b&gt;x&lt;/b&gt;" in html  # hover, escaped
    timed_out = stats_html({**entry, "out_of_time": True})
    assert "time budget" in timed_out and "REA_" not in timed_out  # the server's setting is not named
    vanilla = short_stats({"prompt_tokens": 80, "decisions": {"raw": 4}, "generated": False})
    assert vanilla == "read 80 tokens · past turns: 4 whole · reply as given"
    assert short_stats({"prompt_tokens": 20, "decisions": {}}) == "read 20 tokens"  # a first turn


def test_an_empty_chart_says_why_and_titles_are_wrapped_not_cut():
    from app.views.charts import empty_chart, retrieval_chart
    from rea_core.evals import wrap

    fig = retrieval_chart((), [], tau_low=0.2, tau_high=0.36)
    assert "After your first message" in fig.layout.annotations[0].text and fig.layout.xaxis.visible is False
    assert all(len(line) <= 20 for line in wrap("a long sentence that has to be put on several lines", 20))
    assert wrap("x" * 50, 10) == ["x" * 9 + "…"]
    assert "&lt;b&gt;" in empty_chart("<b>").layout.annotations[0].text


def test_a_visitor_reads_a_refusal_without_the_setting_behind_it():
    from app.tabs.compare.handlers import notice_html

    said = notice_html("The message has 90 tokens, over the limit of 50 (REA_MAX_MESSAGE_TOKENS); nothing was sent.")
    assert "REA_" not in said and "over the limit of 50; nothing was sent." in said


def test_a_long_trace_heatmap_title_is_wrapped_to_fit_a_phone():
    import numpy as np

    from app.views.charts import HEATMAP_TITLE_CHARS, score_heatmap

    users = [f"question {i}" for i in range(800)]
    fig = score_heatmap(np.zeros((60, 799)), users, selected_turn=430, first_row=400)
    lines = fig.layout.title.text.split("<br>")
    assert len(lines) == 2 and all(len(line) <= HEATMAP_TITLE_CHARS for line in lines), lines
    assert "(query turns 400-459 of 800)" in " ".join(lines)
    assert fig.layout.margin.t >= 24 + 16 * 2  # room for both lines above the cells
