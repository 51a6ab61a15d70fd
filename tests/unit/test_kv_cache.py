"""The per-session prefix cache: a key taken by one call makes a second call on it wait, not start cold."""

import threading
import time

from rea_core.backends.kv_cache import CacheEntry, PrefixCache


def entry(n):
    return CacheEntry(items=tuple(range(n)), kv=None, nbytes=n, mode="plain")


def test_a_taken_key_makes_the_next_take_wait_for_its_entry():
    cache = PrefixCache()
    cache.put("s", entry(3))
    assert cache.take("s").items == (0, 1, 2)  # taken: a read-ahead is filling it
    got = []
    waiter = threading.Thread(target=lambda: got.append(cache.take("s")))
    waiter.start()
    time.sleep(0.2)
    assert waiter.is_alive() and not got  # waits rather than starting from nothing
    cache.put("s", entry(5))
    waiter.join(5)
    assert got[0].items == tuple(range(5))
    cache.release("s")
    assert cache.take("other") is None  # other sessions never wait on this one
    cache.release("other")


def test_a_failed_call_gives_its_key_back_and_a_leaked_one_costs_time_not_a_hang():
    cache = PrefixCache()
    cache.put("s", entry(2))
    cache.take("s")
    cache.release("s")  # the call failed: no entry, the key is free
    assert cache.take("s", wait_s=0.1) is None
    start = time.monotonic()
    assert cache.take("s", wait_s=0.2) is None  # never given back: the wait ends
    assert time.monotonic() - start < 2
