"""``rea eval qa``'s pure parts: SQuAD metrics, the NLL gap share on mean NLLs, the judge's label,
question selection, and the input checks (one error line from the CLI, before any model loads)."""

import json

import pytest
from typer.testing import CliRunner

from rea_core.cli.main import app
from rea_core.errors import DataFormatError
from rea_core.evals import qa
from rea_core.evals.retrieval import RetrievalCase, RetrievalQuery, load_cases

runner = CliRunner()


def test_squad_normalization_f1_and_exact_match():
    assert qa.normalize_answer("The  Cat, named Zorblax!") == "cat named zorblax"
    assert qa.exact_match("the Zorblax.", "zorblax") == 1.0
    assert qa.exact_match("Zorblax the cat", "Zorblax") == 0.0
    assert qa.token_f1("Zorblax the cat", "Zorblax") == pytest.approx(2 * 0.5 * 1 / 1.5)  # p 1/2, r 1
    assert qa.token_f1("7 May 2023", "May 7, 2023") == pytest.approx(1.0)  # bag of tokens
    assert qa.token_f1("a dog", "Zorblax") == 0.0
    assert qa.token_f1("", "") == 1.0 and qa.token_f1("", "x") == 0.0


def test_mean_nll_and_gap_share():
    assert qa.mean_nll([-1.0, -3.0]) == pytest.approx(2.0)
    assert qa.mean_nll([]) is None
    assert qa.gap_share(3.0, 3.0, 2.0) == 0.0 and qa.gap_share(3.0, 2.0, 2.0) == 1.0
    assert qa.gap_share(3.3, 3.2, 2.9) == pytest.approx(0.25)
    assert qa.gap_share(3.0, 2.5, 3.0) is None  # the evidence gains nothing: no share
    assert qa.gap_share(None, 2.5, 2.0) is None


def rec(nll, category="single-hop", f1=0.0, judge=None):
    return {
        "nll": nll,
        "category": category,
        "f1": f1,
        "em": 0.0,
        "judge": judge,
        "prompt_tokens": 10,
        "prompt_share": 0.1,
        "evidence_shown": None,
        "seconds": 1.0,
        "memory_s": 0.0,
    }


def test_gap_share_is_taken_on_mean_nlls_not_per_question():
    # per question the shares are 0.0 and 0.9 (mean 0.45); on the means (4.5 - 3.6) / (4.5 - 2.5) = 0.45 is
    # only a coincidence of equal gaps, so the second question's gap is made ten times the first's
    records = {
        "none": [rec(2.0), rec(7.0)],
        "oracle": [rec(1.9), rec(2.0)],
        "arm": [rec(2.0), rec(2.5)],
    }
    out = qa.summarize_arms(records)
    per_question = (0.0 + 0.9) / 2
    on_means = (4.5 - 2.25) / (4.5 - 1.95)
    assert out["arm"]["all"]["gap_share"] == pytest.approx(on_means) and on_means != pytest.approx(per_question)
    assert out["none"]["all"]["gap_share"] == 0.0 and out["oracle"]["all"]["gap_share"] == 1.0
    assert out["arm"]["single-hop"]["questions"] == 2
    without_oracle = qa.summarize_arms({"none": records["none"], "arm": records["arm"]})
    assert without_oracle["arm"]["all"]["gap_share"] is None


def test_judge_label_and_summary_of_judged_records():
    assert qa.parse_judge('Same date. {"label": "CORRECT"}') is True
    assert qa.parse_judge("It names another city. WRONG") is False
    assert qa.parse_judge("no idea") is None
    summary = qa.summarize([rec(1.0, judge=True), rec(1.0, judge=False), rec(1.0, judge=None)])
    assert summary["judge"] == 0.5 and summary["judged"] == 2


def case(cid, n):
    return RetrievalCase(
        id=cid,
        exchanges=(("u", "r"),) * 3,
        queries=tuple(RetrievalQuery(position=3, text=f"q{i}", needed=(0,), answer=f"a{i}") for i in range(n)),
    )


def test_limit_spreads_questions_across_conversations_deterministically():
    cases = [case("a", 10), case("b", 2), case("c", 10)]
    picked = qa.select_questions(cases, 7)
    assert [len(c.queries) for c in picked] == [3, 2, 2]
    assert sum(len(c.queries) for c in picked) == 7
    assert [q.text for q in picked[0].queries] == ["q0", "q4", "q9"]  # evenly over the list
    assert qa.select_questions(cases, 7) == picked
    assert sum(len(c.queries) for c in qa.select_questions(cases, 100)) == 22


def write(path, turns):
    path.write_text(json.dumps({"id": "c", "turns": turns}) + "\n")
    return path


def test_jsonl_answers_load_and_bad_inputs_are_data_errors(tmp_path):
    turns = [{"user": "My cat is Zorblax.", "assistant": "Nice!"}, {"user": "Cat's name?", "answer": "Zorblax"}]
    (c,) = load_cases(write(tmp_path / "ok.jsonl", turns), "jsonl", answers=True)
    assert c.queries[0].answer == "Zorblax" and c.queries[0].needed == ()
    with pytest.raises(DataFormatError, match="oracle"):
        qa.prepare_cases([c], ["none", "oracle"], None)
    assert qa.prepare_cases([c], ["none", "vanilla"], None)[0].queries[0].answer == "Zorblax"
    with pytest.raises(DataFormatError, match='"answer" must be non-empty text'):
        load_cases(write(tmp_path / "num.jsonl", [turns[0], {**turns[1], "answer": 7}]), "jsonl", answers=True)
    with pytest.raises(DataFormatError, match='no turn carries "answer"'):
        load_cases(write(tmp_path / "none.jsonl", turns[:1]), "jsonl", answers=True)
    with pytest.raises(DataFormatError, match="no question carries a gold answer"):
        qa.prepare_cases([case("x", 0)], ["none"], None)
    with pytest.raises(DataFormatError, match="unknown qa arm"):
        qa.check_arms(["none", "rea-fast"])


@pytest.mark.parametrize(
    "turns, arms, message",
    [
        (
            [{"user": "hi", "assistant": "hello"}, {"user": "name?", "answer": 42}],
            "none",
            '"answer" must be non-empty',
        ),
        (
            [{"user": "hi", "assistant": "hello"}, {"user": "name?", "needed": [0]}],
            "none",
            "no question carries a gold answer",
        ),
        ([{"user": "hi", "assistant": "hello"}, {"user": "name?", "answer": "x"}], "none,oracle", "oracle arm"),
        ([{"user": "hi", "assistant": "hello"}, {"user": "name?", "answer": "x"}], "none,psychic", "unknown qa arm"),
    ],
)
def test_cli_bad_inputs_are_one_error_line_before_any_model_loads(tmp_path, turns, arms, message):
    data = write(tmp_path / "d.jsonl", turns)
    result = runner.invoke(
        app,
        ["eval", "qa", "--data", str(data), "--arms", arms, "--out", str(tmp_path / "o"), "--model", "/no/model"],
    )
    assert result.exit_code == 2, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], result.output
    assert "Traceback" not in result.output


def test_locomo_without_any_answer_is_refused(tmp_path):
    conv = {
        "speaker_a": "A",
        "speaker_b": "B",
        "session_1": [
            {"speaker": "A", "dia_id": "D1:1", "text": "hi"},
            {"speaker": "B", "dia_id": "D1:2", "text": "yo"},
        ],
        "qa": [{"question": "Who?", "evidence": ["D1:1"], "category": 4}],
    }
    data = tmp_path / "l.json"
    data.write_text(json.dumps(conv))
    result = runner.invoke(
        app, ["eval", "qa", "--data", str(data), "--format", "locomo", "--out", str(tmp_path / "o"), "--model", "/no"]
    )
    assert result.exit_code == 2 and "no question carries a gold answer" in result.output
