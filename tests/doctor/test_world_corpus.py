"""How `amplora explain` scores on the real-world corpus (tests/doctor/corpus/world.jsonl, issue 19 §1).

The rules were written from the dev split only; the held-out split was scored once, when they were final: 35/41
faults right, 17/17 rejects rejected. The goal (issue 19) is >= 90 % of held-out faults right (37/41); the
threshold below is the level measured then, not the goal, and must not be raised by tuning on held-out texts.
"""
from __future__ import annotations

import pytest

from . import world_corpus as wc

DEV_RIGHT_MIN = 92        # of 95; measured 95, a little room for rewording an entry
HELDOUT_RIGHT_MIN = 35    # of 41; measured once (85 %), short of the 90 % goal


@pytest.fixture(scope="module")
def dev():
    return wc.score(wc.load("dev"))


@pytest.fixture(scope="module")
def heldout():
    return wc.score(wc.load("heldout"))


def test_dev_faults_right_and_no_false_diagnosis(dev):
    assert dev["right"] >= DEV_RIGHT_MIN, _misses(dev)
    assert dev["false_diagnoses"] == 0, _misses(dev)


def test_heldout_faults_right_and_no_false_diagnosis(heldout):
    assert heldout["right"] >= HELDOUT_RIGHT_MIN, _misses(heldout)
    assert heldout["false_diagnoses"] == 0, _misses(heldout)


def _misses(s: dict) -> list:
    return [(x["id"], x["verdict"], x["key"], x["missing"]) for x in s["results"]
            if x["verdict"] not in ("right", "rejected")]
