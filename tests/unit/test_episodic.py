import numpy as np

from rea_core.memory.episodic import EpisodicMemory, Exchange


def vectors(n, d=8, seed=0):
    x = np.random.default_rng(seed).standard_normal((n, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def test_units_are_user_text_then_reply_chunks():
    ex = Exchange(0, "Hi there.", "One. Two. Three. Four. Five.")
    assert ex.units(3) == ["Hi there.", "One. Two.", "Three. Four.", "Five."]
    assert Exchange(0, "Q", "").units(3) == ["Q"]


def test_index_grows_and_truncates():
    em = EpisodicMemory()
    for i in range(100):
        em.append(f"user {i}", f"reply {i}")
    counts = [1 + i % 3 for i in range(100)]
    vecs = vectors(sum(counts))
    em.add_embeddings(vecs, counts)
    units, starts = em.unit_index()
    assert units.shape == (sum(counts), 8) and len(starts) == 100
    np.testing.assert_array_equal(units, vecs)
    em.truncate(10)
    units, starts = em.unit_index()
    assert len(em) == 10 and len(starts) == 10 and len(units) == sum(counts[:10])


def test_round_trip_keeps_embeddings_and_latents():
    em = EpisodicMemory(max_reply_units=2)
    em.append("a", "b")
    em.append("c", "d. e. f.")
    em.exchanges[1].latents = np.arange(16, dtype=np.float32).reshape(8, 2)
    em.embedder_name = "test-vectors"
    em.add_embeddings(vectors(4), [1, 3])
    again = EpisodicMemory.from_dict(em.to_dict())
    np.testing.assert_array_equal(again.unit_index()[0], em.unit_index()[0])
    np.testing.assert_array_equal(again.unit_index()[1], em.unit_index()[1])
    np.testing.assert_array_equal(again.exchanges[1].latents, em.exchanges[1].latents)
    assert again.embedder_name == "test-vectors" and again.max_reply_units == 2


def test_session_json_keeps_reply_and_user_latents():
    from rea_core import ChatSession

    session = ChatSession(strategy="rea")
    ex = session.episodes.append("Where is Paris?", "In France.")
    ex.latents = np.random.default_rng(1).standard_normal((8, 576)).astype(np.float32)
    ex.user_latents = np.random.default_rng(2).standard_normal((8, 576)).astype(np.float32)
    again = ChatSession.from_json(session.to_json()).episodes.exchanges[0]
    np.testing.assert_array_equal(again.latents, ex.latents)
    np.testing.assert_array_equal(again.user_latents, ex.user_latents)
    assert ChatSession.from_json(ChatSession(strategy="rea").to_json()).n_turns == 0
