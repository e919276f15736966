"""How `amplora explain` scores on the real-world corpus (tests/doctor/corpus/world.jsonl, issue 19 §1).

The rules are written from the seen texts (dev + the first heldout split, which was scored once and read since):
all of them must stay right. The fresh held-out split heldout2 was fixed before any rule change and scored once,
when the rules were final: 31/36 faults right (86 %), 16/16 rejects rejected. The goal (issue 19) is >= 90 % of
held-out faults right; the threshold below is the level measured then, not the goal. Its five misses were fixed
afterwards (now 36/36), so heldout2 no longer measures anything and the threshold stays at the measured level.

The third collection, heldout3 (w284-w343), was gathered after the rules were written, committed, then scored once:
17/41 faults right (41 %), 5 partly, 19 unrecognised; 17/19 rejects rejected, 2 false diagnoses (FlashAttention
"only supports Ampere GPUs or newer", read as a flash-attention dtype fault). Those are the thresholds below: the
measured level, far from the goal, so that a regression fails; raising them is for the rules that read its misses.
"""
from __future__ import annotations

import pytest

from . import world_corpus as wc

HELDOUT2_RIGHT_MIN = 31    # of 36; measured once (86 %), short of the 90 % goal
HELDOUT3_RIGHT_MIN = 17    # of 41; measured once (41 %), far short of the 90 % goal
HELDOUT3_FALSE_DIAGNOSES_MAX = 2    # of 19 rejects; measured once, the goal is 0


@pytest.fixture(scope="module")
def seen():
    return wc.score(wc.load("seen"))


@pytest.fixture(scope="module")
def heldout2():
    return wc.score(wc.load("heldout2"))


@pytest.fixture(scope="module")
def heldout3():
    return wc.score(wc.load("heldout3"))


def test_seen_faults_all_right_and_no_false_diagnosis(seen):
    assert seen["right"] == seen["faults"], _misses(seen)
    assert seen["false_diagnoses"] == 0, _misses(seen)


def test_heldout2_faults_right_and_no_false_diagnosis(heldout2):
    assert heldout2["right"] >= HELDOUT2_RIGHT_MIN, _misses(heldout2)
    assert heldout2["false_diagnoses"] == 0, _misses(heldout2)


def test_heldout3_at_least_the_measured_level(heldout3):
    assert heldout3["right"] >= HELDOUT3_RIGHT_MIN, _misses(heldout3)
    assert heldout3["false_diagnoses"] <= HELDOUT3_FALSE_DIAGNOSES_MAX, _misses(heldout3)


def _misses(s: dict) -> list:
    return [(x["id"], x["verdict"], x["key"], x["missing"]) for x in s["results"]
            if x["verdict"] not in ("right", "rejected")]
