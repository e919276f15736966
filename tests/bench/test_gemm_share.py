"""bench/gemm_share.py sorts a step's matmuls into the frozen base's and the adapter's: checked on a real profiled
step of SmolLM2's layout at width 64, whose GEMM counts follow from the adapter node's structure."""
from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path

_spec = importlib.util.spec_from_file_location("bench_gemm_share", Path(__file__).parents[2] / "bench" / "gemm_share.py")
gemm_share = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gemm_share)


def test_shapes_are_read_from_mm_and_addmm_inputs():
    assert gemm_share.gemm_shape("aten::mm", [[1024, 576], [576, 16]]) == (1024, 576, 16)
    assert gemm_share.gemm_shape("aten::addmm_", [[1024, 1536], [1024, 16], [16, 1536], [], []]) == (1024, 16, 1536)
    assert gemm_share.gemm_shape("aten::mul", [[4, 4], [4, 4]]) is None


def test_account_counts_as_base_only_as_many_of_a_shape_as_the_floor_runs():
    kv = (1024, 576, 192)  # k_proj's and v_proj's base GEMM; at r=64 a q/k/v group's x·[A_q; A_k; A_v]ᵀ too
    gemms = [(kv, 1000.0), (kv, 1000.0), (kv, 100.0), ((1024, 576, 16), 50.0)]
    acc = gemm_share.account(gemms, Counter({kv: 2}))
    assert acc["base"][2] == 2 and acc["adapter"][2] == 2
    assert abs(acc["adapter"][0] - 0.15) < 1e-9 and abs(acc["base"][1] - 2 * 2 * 1024 * 576 * 192 / 1e9) < 1e-12


def test_a_real_step_has_the_node_structure_gemm_counts():
    """30 layers, 7 adapted linears in 4 nodes (q/k/v, o, gate/up, down). Per layer the adapter runs 33 GEMMs:
    forward one x·Aᵀ per node and one h·Bᵀ per layer (4 + 7); backward gz·B and ∂B per layer (7 + 7), then one
    gh·A into the input gradient and one ∂A per node (4 + 4). The base runs 14 (forward and input gradient of 7
    layers), plus the LM head's 2."""
    ns = gemm_share.parse(["--narrow", "--batch", "2", "--seq", "16", "--r", "2", "--reps", "1", "--warmup", "1"])
    res = gemm_share.measure(ns)
    assert res["adapter"][2] == 30 * 33
    assert res["base"][2] == 30 * 14 + 2
    assert res["floor_s"] > 0 and res["adapter"][0] > 0
    text = gemm_share.report(res, ns)
    assert "| adapter | 990 |" in text and "of the floor's step" in text
