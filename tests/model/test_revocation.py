"""Revocation and replacement on the labeled set rea_core/data/revocation_set.jsonl.

Each case fills Instructional Memory, sends one message through REA's real recognizer and
embedder, and checks which entries left and whether the message itself was stored.
"""

import json
from pathlib import Path

import pytest

from rea_core import RuntimeConfig, build_strategy
from rea_core.types import InstructionEntry

CASES = [
    json.loads(line)
    for line in (Path(__file__).resolve().parents[2] / "rea_core" / "data" / "revocation_set.jsonl")
    .read_text()
    .splitlines()
    if line.strip()
]


@pytest.fixture(scope="module")
def rea(models):
    return build_strategy("rea", models, runtime=RuntimeConfig(max_new_tokens=8))


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_each_phrasing_removes_the_right_entry(rea, case):
    session = rea.new_session()
    for turn, text in enumerate(case["im"]):
        session.instructions.add(InstructionEntry(text=text, turn=turn))
    rea.update_instructions(session, case["message"])
    after = session.instructions.texts()
    assert [t for t in case["im"] if t not in after] == case["removed"], case["note"]
    assert (case["message"].strip() in after) == case["added"], case["note"]
