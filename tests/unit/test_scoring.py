import numpy as np

from rea_core.retrieval.scoring import max_pairwise_cosine


def unit_rows(rng, n, d=16):
    x = rng.standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def naive(query, units, counts):
    out, start = [], 0
    for c in counts:
        out.append(max(float(q @ u) for q in np.atleast_2d(query) for u in units[start : start + c]))
        start += c
    return np.array(out)


def test_matches_pairwise_loop_for_one_and_many_query_units():
    rng = np.random.default_rng(0)
    counts = [1, 3, 2, 4, 1]
    units = unit_rows(rng, sum(counts))
    starts = np.cumsum([0] + counts[:-1])
    for m in (1, 3):
        q = unit_rows(rng, m)
        np.testing.assert_allclose(
            max_pairwise_cosine(q, units, starts), naive(q, units, counts), rtol=1e-5, atol=1e-6
        )


def test_identical_unit_scores_one():
    rng = np.random.default_rng(1)
    units = unit_rows(rng, 5)
    scores = max_pairwise_cosine(units[3], units, np.array([0, 2]))
    assert scores[1] == np.float32(1.0) or abs(scores[1] - 1.0) < 1e-6
    assert scores[0] < 1.0


def test_no_exchanges():
    assert max_pairwise_cosine(
        np.ones(4, dtype=np.float32), np.zeros((0, 4), np.float32), np.array([], dtype=np.int64)
    ).shape == (0,)
