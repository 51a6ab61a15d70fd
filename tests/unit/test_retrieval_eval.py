"""Retrieval benchmark plumbing and HCR's pure pieces: loaders, metrics, calibration, BM25, follow-ups."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rea_core import REAConfig, Resolution, Thresholds
from rea_core.errors import DataFormatError
from rea_core.evals import retrieval as R
from rea_core.lexical import BM25Index
from rea_core.methods.rea.config import CALIBRATED_THRESHOLDS
from rea_core.retrieval.followup import carry_forward, is_follow_up
from rea_core.retrieval.hcr import keep_best, keep_window, plan_context
from rea_core.retrieval.scoring import fuse, smooth_neighbors
from rea_core.text import extract_relevant


def locomo_file(tmp_path):
    data = {
        "speaker_a": "Ann",
        "speaker_b": "Bo",
        "session_1_date_time": "1 May 2023",
        "session_1": [
            {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy."},
            {"speaker": "Bo", "dia_id": "D1:2", "text": "What breed?"},
            {"speaker": "Ann", "dia_id": "D1:3", "text": "A beagle.", "blip_caption": "a beagle on grass"},
        ],
        "session_2": [
            {"speaker": "Bo", "dia_id": "D2:1", "text": "I ran a marathon."},
            {"speaker": "Ann", "dia_id": "D2:2", "text": "Congrats!"},
        ],
        "qa": [
            {"question": "What breed is Ann's dog?", "answer": "beagle", "evidence": ["D1:3"], "category": 1},
            {"question": "Who ran, and who adopted?", "answer": "x", "evidence": ["D2:1", "D1:1"], "category": 3},
            {"question": "What is Bo's cat called?", "answer": "none", "evidence": [], "category": 5},
        ],
    }
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_locomo_loader_pairs_turns_within_sessions_and_maps_evidence(tmp_path):
    (case,) = R.load_locomo(locomo_file(tmp_path))
    assert case.exchanges == (
        ("Ann: I adopted a puppy.", "Bo: What breed?"),
        ("Ann: A beagle. [shares a photo: a beagle on grass]", ""),  # an odd session's last turn stands alone
        ("Bo: I ran a marathon.", "Ann: Congrats!"),
    )
    assert [(q.text, q.needed, q.position) for q in case.queries] == [
        ("What breed is Ann's dog?", (1,), 3),
        ("Who ran, and who adopted?", (0, 2), 3),
    ]  # category 5 skipped
    assert R.load_cases(tmp_path, "locomo")[0].queries == case.queries  # a folder of files works too


def test_locomo_loader_reads_the_release_list_with_sessions_nested_under_conversation(tmp_path):
    flat = json.loads(locomo_file(tmp_path).read_text(encoding="utf-8"))
    qa = flat.pop("qa")
    release = tmp_path / "release" / "locomo10.json"
    release.parent.mkdir()
    release.write_text(json.dumps([{"sample_id": "conv-1", "qa": qa, "conversation": flat, "event_summary": {}}]))
    (case,) = R.load_locomo(release)
    assert case.id == "conv-1" and case.queries == R.load_locomo(tmp_path / "conv.json")[0].queries
    release.write_text(json.dumps([{"sample_id": "conv-1", "conversation": flat}]))  # no questions: refused
    with pytest.raises(DataFormatError, match='conversation 0.*needs "session_1" and "qa"'):
        R.load_locomo(release)


def test_locomo_loader_maps_session_dates_onto_exchanges_and_keeps_answers(tmp_path):
    path = locomo_file(tmp_path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["session_1_date_time"] = "1:56 pm on 8 May, 2023"  # the release's own form
    data["session_2_date_time"] = "10:05 am on 20 June, 2023"
    path.write_text(json.dumps(data), encoding="utf-8")
    (case,) = R.load_locomo(path)
    assert case.times == ("2023-05-08T13:56", "2023-05-08T13:56", "2023-06-20T10:05")  # one per exchange
    assert [(q.answer, q.category) for q in case.queries] == [("beagle", 1), ("x", 3)]
    data["session_2_date_time"] = "sometime in June"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFormatError, match="session_2_date_time.*not like"):
        R.load_locomo(path)
    data["session_2_date_time"] = "1 June 2023"
    data["qa"][0]["answer"] = ["beagle"]
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DataFormatError, match='list "answer"; expected text or a number'):
        R.load_locomo(path)


def test_needed_jsonl_loader_and_its_errors(tmp_path):
    good = {
        "id": "c",
        "turns": [{"user": "a", "assistant": "b"}, {"user": "c", "assistant": "d"}, {"user": "e", "needed": [0]}],
    }
    path = tmp_path / "x.jsonl"
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    (case,) = R.load_needed_jsonl(path)
    assert case.queries == (R.RetrievalQuery(position=2, text="e", needed=(0,)),)
    for bad, message in (([2], "not before that turn"), ("0", "non-empty list"), ([], "non-empty list")):
        good["turns"][2]["needed"] = bad
        path.write_text(json.dumps(good) + "\n", encoding="utf-8")
        with pytest.raises(DataFormatError, match=message):
            R.load_needed_jsonl(path)
    del good["turns"][2]["needed"]
    path.write_text(json.dumps(good) + "\n", encoding="utf-8")
    with pytest.raises(DataFormatError, match="no turn carries"):
        R.load_needed_jsonl(path)


def test_metrics_and_calibration():
    scores = np.array([0.9, 0.1, 0.5, 0.3])
    assert R.recall_at(scores, [0, 3], 2) == 0.5
    kept = scores >= 0.3
    rec = R.query_record(kept, scores >= 0.6, scores, [0, 3], prompt_tokens=50, history_tokens=200)
    assert (
        rec["all_kept"]
        and rec["recall"] == 1
        and rec["raw_recall"] == 0.5
        and rec["kept_share"] == 0.75
        and rec["prompt_share"] == 0.25
    )
    rec["sweep"] = R.sweep_record(scores, np.zeros(4, dtype=bool), [0, 3])
    summary = R.summarize([rec])
    cal = R.calibrate(summary["sweep"], target=1.0)
    assert (
        cal["tau_low"] == 0.3 and cal["reached"] and cal["kept_share"] == 0.75
    )  # highest tau keeping exchange 3 (score 0.3)
    assert cal["tau_high"] >= cal["tau_low"]


def test_calibrated_defaults_are_the_config_defaults():
    for scorer, (lo, hi) in CALIBRATED_THRESHOLDS.items():
        cfg = REAConfig(scorer=scorer)
        assert (cfg.tau_low, cfg.tau_high) == (lo, hi)
    assert (REAConfig().tau_low, REAConfig().tau_high) == CALIBRATED_THRESHOLDS[REAConfig().scorer]
    assert REAConfig(tau_high=0.1).tau_low <= 0.1  # one threshold given: the other follows, ordered
    assert R.policy_config("rea-minilm", REAConfig()).tau_low == CALIBRATED_THRESHOLDS["minilm"][0]


def test_bm25_index_grows_and_truncates_like_a_fresh_one():
    docs = ["the coffee shop by the sea", "names for a bakery", "sea shells and coffee beans", "a marathon in May"]
    grown = BM25Index()
    for d in docs:
        grown.add([d])
    fresh = BM25Index()
    fresh.add(docs)
    assert np.allclose(grown.scores("coffee by the sea"), fresh.scores("coffee by the sea"))
    norm = fresh.normalized("coffee sea")
    assert norm.argmax() in (0, 2) and 0 < norm.max() <= 1 and norm[3] == 0
    grown.truncate(2)
    two = BM25Index()
    two.add(docs[:2])
    assert np.allclose(grown.scores("coffee names"), two.scores("coffee names"))
    assert fresh.normalized("the of and").tolist() == [0, 0, 0, 0]  # stop words only


def test_fusion_smoothing_and_decision_floors():
    assert np.allclose(fuse(np.array([1.0, -0.2]), np.array([0.0, 1.0]), 0.3), [0.3, 0.7])
    assert np.allclose(smooth_neighbors(np.array([0.0, 1.0, 0.0]), 0.2), [0.2, 1.0, 0.2])
    decisions = plan_context([0, 1, 2, 3], [0.1, 0.05, 0.02, 0.6], Thresholds(0.5, 0.9))
    assert [d.resolution for d in keep_window(decisions, [40], raw_tokens=100, band=1)] == [
        Resolution.OMIT,
        Resolution.OMIT,
        Resolution.COMPRESSED,
        Resolution.RAW,
    ]
    assert [d.resolution for d in keep_best(decisions, 1)][:3] == [
        Resolution.COMPRESSED,
        Resolution.OMIT,
        Resolution.OMIT,
    ]
    assert np.allclose(carry_forward(np.array([0.1, 0.1, 0.1]), np.array([0.9, 0.0]), 0.5), [0.45, 0.1, 0.5])


@pytest.mark.parametrize(
    "text",
    [
        "Make them sound more playful.",
        "What about the second one?",
        "And in Japanese?",
        "same for Berlin",
        "Translate that to Spanish",
        "Can you make it shorter?",
    ],
)
def test_follow_ups_are_recognized(text):
    assert is_follow_up(text)


@pytest.mark.parametrize("text", ["What is the capital of Australia?", "When did Caroline go to the support group?"])
def test_standalone_questions_are_not_follow_ups(text):
    assert not is_follow_up(text)


def test_a_standalone_request_is_less_likely_a_follow_up_than_not():
    from rea_core.retrieval.followup import follow_up_probability

    assert (
        follow_up_probability("Give me three names for a coffee shop by the sea.")
        < 0.5
        < follow_up_probability("Make them sound more playful.")
    )


@pytest.mark.parametrize(
    "text",
    [
        "shorter please",
        "lol make him even angrier",
        "darker, and in first person",
        "the middle option sounds perfect, where should we stay?",
    ],
)
def test_the_signal_catches_held_out_phrasing_families_the_old_phrase_rules_missed(text):
    """From the test half of benchmarks/data/followups (families bare_edit, pronoun_edit, positional:
    never used to fit the detector); the phrase rules it replaced (benchmarks/fit_followup.py,
    ``old_rules``) missed each of them."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from fit_followup import old_rules

    assert is_follow_up(text) and not old_rules(text)


def test_extractive_compression_keeps_the_query_relevant_sentence():
    reply = (
        "Paris is lovely in spring. The Louvre opens at nine. "
        "Trains to Lyon leave hourly from Gare de Lyon. Bring an umbrella."
    )
    out = extract_relevant(reply, "When do trains to Lyon leave?", max_words=10)
    assert "Trains to Lyon leave hourly" in out and "Louvre" not in out and len(out.split()) <= 11
    assert extract_relevant("Short reply.", "anything", 10) == "Short reply."
