"""Output rules on the packaged model: REA keeps IM's lowercase and no-comma instructions while decoding
and says so; vanilla, with no IM, is left to the model; the setting turns it off."""

from __future__ import annotations

from dataclasses import replace

from rea_core.evals.checks import Check
from rea_core.loading import build_strategy
from rea_core.methods.base import stats_text, turn_summary
from rea_core.methods.rea.config import REAConfig
from rea_core.runtime import RuntimeConfig

RUNTIME = RuntimeConfig(kv_reuse=False, max_new_tokens=40)
LOWER = Check("change_case:english_lowercase")
NO_COMMA = Check("punctuation:no_comma")


def _chat(strategy, messages):
    session = strategy.new_session()
    return [strategy.respond(session, m) for m in messages]


def test_rea_keeps_lowercase_and_no_commas_from_its_im_and_says_so(models):
    rea = build_strategy("rea", models, REAConfig(), runtime=RUNTIME)
    results = _chat(
        rea,
        [
            "From now on, answer only in lowercase letters and never use a comma.",
            "What is the capital of France? Tell me about it.",
            "Name three things to pack for a beach trip.",
        ],
    )
    for result in results[1:]:
        assert [r.kind for r in result.plan.rules] == ["lowercase", "no_comma"]
        assert result.generation.kept_rules == ("lowercase letters only", "no commas")
        assert LOWER.passed(result.reply) and NO_COMMA.passed(result.reply), result.reply
        assert len(result.reply.split()) >= 3  # words, not an emptied reply
        assert any("Kept while decoding" in n for n in result.plan.notes)
        assert "kept while decoding: lowercase letters only, no commas" in stats_text(turn_summary(result))


def test_vanilla_has_no_rules_and_the_setting_turns_them_off(models):
    messages = ["From now on, answer only in lowercase letters.", "Who wrote Hamlet? Answer in a sentence."]
    vanilla = _chat(build_strategy("vanilla", models, runtime=RUNTIME), messages)[-1]
    assert vanilla.plan.rules == () and vanilla.generation.kept_rules == ()
    off = build_strategy("rea", models, replace(REAConfig(), output_rules=False), runtime=RUNTIME)
    alone = _chat(off, messages)[-1]
    assert alone.plan.rules == () and alone.generation.kept_rules == ()
    assert alone.plan.instructions is not None  # IM still holds the instruction; only decoding leaves it
