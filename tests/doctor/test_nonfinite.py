"""Non-finite values traced to their origin: programs whose loss or gradients go inf/NaN, run in-process under
`watch()` (nothing raised; `watcher.nonfinite` holds the finding) and as `amplora doctor run` (the finding printed,
exit 7 instead of the script's 0; `--allow-nonfinite` keeps the 0)."""
from __future__ import annotations

import json
import math

import pytest
import torch

from .conftest import NONFINITE_SPECS, amplora_cli, program_path, run_program

NONFINITE_EXIT = 7

CASES = {
    "nan_fp16_mlp_overflow": dict(
        phase="forward", module="model.layers.1.mlp.up_proj", op="aten.mm", dtype="fp16", value="inf",
        culprit=["overflowed fp16", "65504"], fix=["fp32", "bf16 instead of fp16"], inputs=["mat2: fp16"]),
    "nan_fp16_attention_mask": dict(
        phase="forward", module="attn", op="aten.mul", dtype="fp16", value="inf",
        culprit=["-1e+09", "does not fit fp16", "65504"], fix=["torch.finfo(scores.dtype).min"],
        inputs=["constant -1000000000.0"]),
    "nan_custom_backward": dict(
        phase="backward", module="model.layers.0.mlp.act_fn", op="aten.div", dtype="fp32", value="inf and NaN",
        culprit=["ScaledSiLU.backward", "divided by zero"], fix=["eps", "ScaledSiLU.backward"],
        inputs=["other: fp32", "max |x| = 0"]),
    "nan_optimizer_step": dict(
        phase="optimizer step", module="lm_head", op="SGD.step", dtype="fp16", value="inf",
        culprit=["lm_head.weight", "SGD"], fix=["lower the learning rate", "fp32"],
        inputs=["grad: fp16", "lr: 30000"]),
    # an exp in a hand-written loss outside any module overflows fp16: caught at that op as the script makes it
    "nan_fp16_loss_outside_module": dict(
        phase="the script's own code (outside any module)", module=None, op="aten.exp", dtype="fp16", value="inf",
        culprit=["aten.exp overflowed fp16"], fix=["fp32", "log_softmax"], inputs=["self: fp16 [8x8]"]),
    # Adam's eps is 0 in fp16 state: 0 / 0 with tiny gradients and a small learning rate
    "nan_fp16_adam_eps": dict(
        phase="optimizer step", module="0", op="Adam.step", dtype="fp16", value="inf and NaN",
        culprit=["Adam"], fix=["fp32", "eps >= 1e-4"], inputs=["grad: fp16", "lr: 0.001"]),
    # a hand-written optimizer keeps its state in fp16 beside fp32 weights: no torch.optim hook sees the step, the
    # next forward finds the NaN weights, and the state is found by its shape and dtype
    "nan_fp16_hand_optimizer_state": dict(
        phase="optimizer step (weights were already non-finite)", module="0", op="", dtype="fp32", value="inf and NaN",
        culprit=["0.weight", "`HalfStateRMSprop.square_avg[0]`"], fix=["torch.zeros_like(p)", "HalfStateRMSprop"],
        inputs=["grad: none"]),
    # a hand-written KL takes log(0) of an fp16 teacher's underflowed probabilities: the loss is NaN, the gradients
    # finite; the NaN scalar arms a trace of the script's own ops and the next step finds the log
    "nan_fp16_teacher_kl": dict(
        phase="the script's own code (outside any module)", module=None, op="aten.log", dtype="fp16", value="inf",
        culprit=["log of zero (fp16)"], fix=["F.log_softmax(logits.float(), -1)"], inputs=["self: fp16 [16x5]"]),
    # a hand-written distance sqrt(sum((a - b)^2)) of identical pairs is 0 and its backward inf: the square roots taken
    # outside modules are kept for the step, and the one that was 0 is named
    "nan_sqrt_zero_distance": dict(
        phase="backward", module=None, op="aten.sqrt", dtype="fp32", value="inf and NaN",
        culprit=["backward of aten.sqrt at 0", "4 value(s) were 0"], fix=["clamp_min(1e-6).sqrt()"],
        inputs=["aten.sqrt result: fp32 [8]"]),
    # the script's own fp16 running sum of per-batch losses passes 65504 outside any module, under no_grad
    "nan_fp16_running_sum": dict(
        phase="the script's own code (outside any module)", module=None, op="aten.add_", dtype="fp16", value="inf",
        culprit=["overflowed fp16", "65504"], fix=["loss.float()", "loss.item()"], inputs=["self: fp16 [scalar]"]),
    # a hand-made static loss scale of 2**16 multiplies an fp16 loss past 65504 before backward
    "nan_fp16_static_loss_scale": dict(
        phase="the script's own code (outside any module)", module=None, op="aten.mul", dtype="fp16", value="inf",
        culprit=["the loss scale 65536", "65504"], fix=["GradScaler", "bf16"], inputs=["constant 65536.0"]),
    # eps=1e-8 rounds to 0 in fp16: rsqrt of a zero padding row's mean square is inf
    "nan_fp16_rmsnorm_eps": dict(
        phase="forward", module="0", op="aten.rsqrt", dtype="fp16", value="inf",
        culprit=["got exact zeros (fp16)"], fix=["1e-5 or more in fp16", "fp32"], inputs=["self: fp16"]),
    # a custom backward divides by a running product of gates that underflowed to 0 in fp16
    "nan_fp16_scan_backward": dict(
        phase="backward", module="Mixer", op="aten.div", dtype="fp16", value="NaN",
        culprit=["divided by zero in GatedScan.backward"], fix=["compute the divisor in fp32"],
        inputs=["other: fp16"]),
    # an fp16 sigmoid saturated to exactly 1: a hand-written log(1 - p) is log(0)
    # class weights made NaN before training by an empty class: the model's output is finite, the loss is not
    "nan_stale_class_weights": dict(
        phase="loss (outside any module)", module=None, op="", dtype="fp32", value="NaN",
        culprit=["`weights`, which the loss code reads, already held NaN",
                 "weights = class_weights(counts), line 18"],
        fix=["counts.clamp(min=1)"], inputs=["weights: fp32 [4], holds NaN"]),
    # an eikonal penalty on an input gradient taken with create_graph=True: sqrt(0)'s backward under an fp16 eps of 0
    # a fixed hand-written loss scale that overflows the fp16 gradients on every step: each step is skipped, so the
    # overflow held as pending is never followed by a finite backward and is the finding when the run ends
    "nan_fp16_every_step_skipped": dict(
        phase="loss (outside any module)", module=None, op="", dtype="fp16", value="inf",
        culprit=["the gradient coming back into it is not"], fix=["a hand-written loss scale must come down"],
        inputs=["Sequential output: fp16"]),
    # an export that casts every state-dict entry to fp16 overflows a variance buffer: named by its key
    "nan_fp16_state_dict_export": dict(
        phase="the script's own code (outside any module)", module=None, op="aten._to_copy", dtype="fp16",
        value="inf", culprit=["state-dict entry `y_var`"], fix=["keep `y_var`", "bf16"],
        inputs=["self: fp32 [scalar]"], input_beyond_limit=True),
    # sliding-window inference in fp16 over a 3x256x256 accumulator (beyond the size checked for fp32 results):
    # the Gaussian weights' corners are 0 in fp16, so a corner's weight sum is 0 and `acc / norm` is 0/0
    "nan_fp16_sliding_window_norm": dict(
        phase="the script's own code (outside any module)", module=None, op="aten.div", dtype="fp16", value="NaN",
        culprit=["divided by zero"], fix=["in fp32"], inputs=["self: fp16 [3x256x256]", "other: fp16 [256x256]"]),
    # a matching kernel exp(-cost / eps) taken in fp16 outside the model, normalised by iterated scalings 1 / (K v):
    # the forward stays finite, the gradients through the scalings overflow; the exp's line is named
    "nan_fp16_exp_kernel_scaling": dict(
        phase="loss (outside any module)", module=None, op="exp", dtype="fp16", value="NaN",
        culprit=["takes exp() in fp16 at `kernel = torch.exp(-cost / eps)`"], fix=["in the log domain"],
        inputs=["Sequential output: fp16"]),
    "nan_fp16_gradient_penalty": dict(
        phase="backward", module="Sequential", op="sqrt", dtype="fp16", value="inf/NaN",
        culprit=["the gradient penalty on the gradient of Sequential's output with respect to its input"],
        fix=["in fp32", "torch.sqrt(g.pow(2).sum(-1) + eps)"], inputs=[], largest_unknown=True),
    "nan_fp16_sigmoid_log": dict(
        phase="the script's own code (outside any module)", module=None, op="aten.log", dtype="fp16", value="inf",
        culprit=["1 - p is 0 where p rounded to 1"], fix=["BCEWithLogitsLoss", "fp32"], inputs=["self: fp16"]),
    # a model returning a mean and a variance: the variance (its second output) overflows, the mean stays finite
    "nan_fp16_second_output": dict(
        phase="forward", module="Gaussian", op="aten.pow", dtype="fp16", value="inf",
        culprit=["overflowed fp16"], fix=["fp32"], inputs=["self: fp16"]),
    # a custom Function applied in the loss outside any module: its backward's eps of 1e-12 is 0 in fp16
    "nan_fp16_custom_backward_loss": dict(
        phase="backward", module=None, op="aten.div", dtype="fp16", value="inf",
        culprit=["divided by zero in RootDistance.backward"], fix=["compute the divisor in fp32"],
        inputs=["other: fp16"]),
    # an fp16 noise schedule: 1 - alpha_bar rounds to 0, and an fp32 sample is divided by its square root
    "nan_fp16_schedule_divisor": dict(
        phase="the script's own code (outside any module)", module=None, op="aten.div", dtype="fp32", value="inf",
        culprit=["1 - a is 0 in fp16 where a rounded to 1"], fix=["dtype=torch.float32"], inputs=["other: fp16"]),
    # a fake-quant scale buffer refreshed in place in each forward: its clamp(min=1e-8) is 0 in fp16, so 0 / 0
    "nan_fp16_scale_buffer": dict(
        phase="forward", module="1", op="aten.div", dtype="fp32", value="NaN",
        culprit=["divided by zero"], fix=["compute the divisor in fp32"], inputs=["other: fp16"]),
    # an activation penalty summed in fp16 inside a forward hook: the loss is inf, the outputs and gradients finite;
    # the inf stacked outside modules arms a trace, which the next step's hook is part of
    "nan_fp16_hook_penalty": dict(
        phase="forward", module="the forward hook `penalty_hook` of Sequential", op="aten.sum", dtype="fp16",
        value="inf", culprit=["overflowed fp16", "65504"], fix=["fp32"], inputs=["self: fp16 [64x256]"]),
    # D^-1/2 of a graph whose unreached nodes have degree 0: 0 ** -0.5 is inf in fp32 too, no overflow
    "nan_degree_zero_power": dict(
        phase="forward", module="GCN", op="aten.pow", dtype="fp32", value="inf",
        culprit=["raised exact zeros to the power -0.5"], fix=["deg.clamp(min=1).pow(-0.5)", "self loops"],
        inputs=["exponent: constant -0.5"]),
    # `.half()` for an fp16 export casts a mean buffer of about 85,000 to inf: the buffer is named by its path
    "nan_fp16_cast_buffer": dict(
        phase="the script's own code (outside any module)", module=None, op="aten._to_copy", dtype="fp16",
        value="inf", culprit=["overflowed its buffer `0.mean`", "65504"], fix=["`.float()`", "bf16"],
        inputs=["self: fp32 [3]"], input_beyond_limit=True),
    # a static loss scale of 2**16 in pure fp16: a bias every logit shares sums the scaled gradients past 65504 in
    # backward, and SGD applies the non-finite gradient
    "nan_fp16_shared_bias_grad": dict(
        phase="optimizer step", module="", op="SGD.step", dtype="fp16", value="NaN",
        culprit=["logit_bias", "whose gradient was already NaN"], fix=["GradScaler", "bf16"],
        inputs=["grad: fp16"]),
}


def _check(d: dict, case: dict) -> None:
    for key in ("phase", "module", "dtype", "value"):
        assert d[key] == case[key], (key, d[key])
    assert (d["op"] or "").startswith(case["op"])
    for text in case["culprit"]:
        assert text in d["culprit"], (text, d["culprit"])
    for text in case["fix"]:
        assert text in d["fix"], (text, d["fix"])
    for text in case["inputs"]:
        assert any(text in line for line in d["inputs"]), (text, d["inputs"])
    limit = {"fp16": 65504.0, "fp32": 3.4028234663852886e38}[d["dtype"]]
    assert d["limit"] == pytest.approx(limit) and 0 <= d["largest"] <= limit or case.get("input_beyond_limit") or (
        case.get("largest_unknown") and math.isnan(d["largest"]))
    assert d["cause"].strip() and d["cause"].count(". ") == 0, "cause is one sentence"


def test_an_eps_too_small_for_fp16_on_the_failing_line_is_named():
    _, watcher = run_program("nan_fp16_custom_backward_loss")
    assert "1e-8 and 1e-12 are 0 in fp16" in watcher.nonfinite.cause
    _, watcher = run_program("nan_fp16_schedule_divisor")  # `eps = ...` names a variable, adds no eps
    assert "eps on that line" not in watcher.nonfinite.cause


def test_the_line_that_made_the_logged_zero_is_named():
    _, watcher = run_program("nan_fp16_likelihood_product")  # log(p) where p = probs.prod(-1), a line above
    d = watcher.nonfinite.as_dict()
    assert d["op"] == "aten.log" and "(seq_prob = tok_probs.prod(dim=-1), line 10)" in d["where"]
    assert "product of probabilities" in d["cause"] and "sum the log-probabilities" in d["fix"]


def test_zeros_born_of_a_half_product_and_logged_after_widening_name_the_product():
    _, watcher = run_program("nan_fp16_hmm_forward_log")  # alpha multiplied in fp16, log(alpha.sum().float())
    d = watcher.nonfinite.as_dict()
    assert d["op"] == "aten.log" and d["dtype"] == "fp32" and "forward_log_likelihood" in d["where"]
    assert "zeros born in fp16 at" in d["culprit"] and "`alpha = (alpha @ trans) * emit[:, t]`" in d["culprit"]
    assert "underflowed to 0" in d["cause"] and "torch.logsumexp" in d["fix"]


def test_a_logged_zero_that_no_half_product_made_is_left_alone():
    """Zeros a mask put there (fp32 would have them too) and zeros of an fp32 product are no half-precision
    underflow: the -inf of their log is the script's own business."""
    import amplora.doctor as doctor
    probs = torch.softmax(torch.randn(4, 8), -1)
    mask = (torch.arange(8) < 5).half()
    with doctor.watch() as w, torch.no_grad():
        masked = torch.log((probs.half() * mask).float())  # a 0/-inf mask by design
        tiny = torch.log(torch.full((4,), 1e-30) * 1e-30)  # an fp32 product's underflow
    assert bool(torch.isinf(masked).any()) and bool(torch.isinf(tiny).all()) and w.nonfinite is None


def test_cases_cover_the_subprocess_list():
    assert set(CASES) == set(NONFINITE_SPECS)


@pytest.mark.parametrize("name", list(CASES))
def test_watch_traces_the_origin(name):
    fault, watcher = run_program(name)
    assert fault is None  # nothing raised: the script ran to its end
    assert watcher.nonfinite is not None, f"{name}: no non-finite origin found"
    _check(watcher.nonfinite.as_dict(), CASES[name])
    summary = watcher.nonfinite.summary()
    assert (CASES[name]["module"] or CASES[name]["phase"]) in summary and "fix:" in summary


@pytest.mark.parametrize("name", NONFINITE_SPECS)
def test_doctor_run_exits_7(name, doctor_runs):
    proc, data = doctor_runs[name].result()
    assert proc.returncode == NONFINITE_EXIT, proc.stderr[-3000:]
    assert data["fault"] is None and data["exit_code"] == NONFINITE_EXIT
    _check(data["nonfinite"], CASES[name])
    assert "non-finite values" in proc.stderr and "first appeared in " + CASES[name]["phase"] in proc.stderr
    assert "Traceback" not in proc.stderr
    assert data["notes"] == [] and "note:" not in proc.stderr  # the finding tells the cause; no note beside it


def test_a_note_seen_before_a_finding_is_kept_but_not_printed():
    """Adam's eps of 0 in fp16 state is noted at its first step, whose update then goes NaN: `doctor run` prints the
    finding alone."""
    _, watcher = run_program("nan_fp16_adam_eps")
    assert watcher.nonfinite is not None and "eps=1e-08, which is 0 in fp16" in watcher.notes[0]


def test_the_re_run_leaves_the_runs_buffers_alone(doctor_runs):
    """The re-run that finds the origin reads copies of the buffers: the forward's in-place refresh of the scale does
    not bump the version the step's backward saved, and BatchNorm counts only the script's own batches."""
    proc, _ = doctor_runs["nan_fp16_scale_buffer"].result()
    assert "batchnorm saw 3 batches" in proc.stdout, proc.stderr[-3000:]


def test_allow_nonfinite_keeps_the_scripts_exit_code():
    proc = amplora_cli("doctor", "run", "--allow-nonfinite", str(program_path("nan_fp16_attention_mask")),
                       env_extra={"OMP_NUM_THREADS": "1"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "first appeared in forward" in proc.stderr  # still said, only not an error


def test_watch_nonfinite_false_checks_nothing():
    _, watcher = run_program("nan_fp16_attention_mask", nonfinite=False)
    assert watcher.nonfinite is None


def test_a_running_sum_kept_in_fp32_is_left_alone():
    """The same fp16 evaluation with its running sum taken as Python floats: nothing is reported."""
    import amplora.doctor as doctor
    import torch
    import torch.nn.functional as F
    from torch import nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Embedding(64, 32), nn.Linear(32, 64)).half().eval()
    with doctor.watch() as w, torch.no_grad():
        total = 0.0
        for _ in range(20):
            ids = torch.randint(0, 64, (16, 64))
            total += F.cross_entropy(model(ids).reshape(-1, 64), ids.reshape(-1), reduction="sum").item()
    assert total > 65504 and w.nonfinite is None


def test_a_freed_scalar_s_reused_id_lends_no_stale_value():
    """The watch remembers the last finite value of 0-dim results (for `total += loss`); a tensor that is already inf
    and gets the id of such a freed result (CPython reuses it at once) must not be checked against that value, which
    would make its in-place `div_` look like where the inf was born."""
    import amplora.doctor as doctor
    inf, x = torch.tensor(float("inf"), dtype=torch.float16), torch.tensor(0.25, dtype=torch.float16)
    reused = 0
    for _ in range(50):
        with doctor.watch() as w:
            a = x * 2  # a finite 0-dim fp16 result: recorded
            freed = id(a)
            del a
            b = inf.clone()  # inf already, made from inf
            reused += id(b) == freed
            b.div_(2.0)
        assert w.nonfinite is None, w.nonfinite.as_dict()
        if reused >= 3:
            break
    if not reused:
        pytest.skip("no id was reused in 50 tries: the case did not arise")


def test_state_kept_in_half_is_found_and_named_by_its_owner():
    import torch

    from amplora.doctor.held_state import half_copies

    class HandAdam:
        def __init__(self, params):
            self.state = {p: {"m": torch.zeros_like(p, dtype=torch.float16)} for p in params}
            self.shadow = torch.zeros(3, 4, dtype=torch.bfloat16)

    w = torch.nn.Parameter(torch.zeros(3, 4))
    opt = HandAdam([w])
    names = sorted(name for _, name in half_copies(w))
    assert names == ["HandAdam.shadow", "HandAdam.state[...]['m']"], names
    assert half_copies(w.half()) == []  # half weights: their state in half is no mismatch
    del opt


def test_fresh_memory_from_empty_is_no_birth():
    """`torch.empty_like` returns whatever bits the memory held (NaN among them): only a value written or computed
    can be where a NaN was born."""
    from amplora.doctor.nonfinite import NonFiniteTracer
    x = torch.ones(4)
    tracer = NonFiniteTracer()
    tracer._check(torch.ops.aten.empty_like.default, (x,), {}, torch.full_like(x, float("nan")), caller=None)
    assert tracer.first is None and tracer.first_nan is None
    tracer._check(torch.ops.aten.log.default, (torch.zeros(4),), {}, torch.full_like(x, float("-inf")), caller=None)
    assert tracer.first is not None and tracer.first.op == "aten.log.default"


def test_weights_made_inf_from_tiny_gradients_name_a_division_not_the_learning_rate():
    """A hand-written Adam-like update in fp16: the gradients are tiny, so no plain step reaches 65504; the update
    divided by an eps and a squared-gradient average that are 0 in fp16."""
    from amplora.doctor.nonfinite import explain_params
    layer = torch.nn.Linear(4, 4).half()
    with torch.no_grad():
        layer.weight[0, 0] = float("inf")
    layer.weight.grad = torch.full_like(layer.weight, 1e-3)
    found = explain_params([("weight", layer.weight)], [layer])
    assert "divided by a denominator that is 0 in fp16" in found.cause and "eps >= 1e-4" in found.fix
    layer.weight.grad = torch.full_like(layer.weight, 30.0)  # large gradients: the step itself can overflow
    assert "passed fp16's limit" in explain_params([("weight", layer.weight)], [layer]).cause


def test_a_finding_without_a_measured_magnitude_does_not_print_one():
    from amplora.doctor.nonfinite import input_gradient
    dtype_row = dict(input_gradient("SDF", torch.float16).rows())["dtype"]
    assert dtype_row == "fp16 (largest finite 65504)"


def test_a_gradient_overflow_counts_while_running_only_once_something_follows_it():
    """A loss scale too large for fp16 activations overflows the gradient into the model's output: while the watch
    runs it is held (a callback reading it mid-run sees nothing yet), it is the finding once the run ends unrecovered,
    and a later finite backward of the same module (the scale lowered, as a dynamic scaler does) drops it."""
    from amplora.doctor import watch

    torch.manual_seed(0)
    model = torch.nn.Linear(4, 1).half()
    x = torch.randn(8, 4, dtype=torch.float16)

    def backward(scale):
        model.zero_grad(set_to_none=True)
        (model(x).float().sum() * scale).backward()

    with watch(model) as unrecovered:
        backward(2.0 ** 20)
        assert unrecovered.nonfinite is None
    assert unrecovered.nonfinite is not None and unrecovered.nonfinite.dtype == "fp16"
    with watch(model) as recovered:
        backward(2.0 ** 20)
        backward(1.0)
    assert recovered.nonfinite is None


@pytest.mark.parametrize("dtype, eps, noted", [(torch.float16, 1e-8, True), (torch.float16, 1e-4, False),
                                                (torch.bfloat16, 1e-8, False), (torch.float32, 1e-8, False)])
def test_an_fp16_optimizer_state_whose_eps_is_zero_is_noted_even_when_the_run_stays_finite(dtype, eps, noted):
    """AdamW over fp16 weights keeps fp16 state, where eps=1e-8 is 0: a hazard whether or not this run's gradients
    underflow; bf16 (fp32's range) and fp32 hold that eps, and 1e-4 is a positive fp16."""
    from amplora.doctor import watch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4)).to(dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, eps=eps)
    with watch(model) as watcher:
        for _ in range(2):
            model(torch.randn(8, 4, dtype=dtype)).float().pow(2).mean().backward()
            opt.step()
            opt.zero_grad()
    assert watcher.nonfinite is None
    assert len(watcher.notes) == int(noted)  # once per optimizer, not per step
    if noted:
        assert "AdamW updates 2 fp16 parameter(s) (0.weight, ...)" in watcher.notes[0]
        assert "eps=1e-08, which is 0 in fp16" in watcher.notes[0] and "eps >= 1e-4" in watcher.notes[0]


def test_a_note_is_printed_and_keeps_the_exit_code(tmp_path):
    script = tmp_path / "fp16_adamw.py"
    # seeded: with some inputs a small gradient's second moment, (1 - beta2) * grad**2, underflows fp16 and AdamW's
    # m / (sqrt(v) + eps=0) is not finite (exit 7); seed 0 keeps the run finite so the note alone is tested
    script.write_text("import torch\ntorch.manual_seed(0)\nm = torch.nn.Linear(4, 4).half()\n"
                      "opt = torch.optim.AdamW(m.parameters())\n"
                      "m(torch.randn(2, 4).half()).float().sum().backward()\nopt.step()\n")
    out = tmp_path / "run.json"
    proc = amplora_cli("doctor", "run", "--json", str(out), str(script))
    assert proc.returncode == 0 and "amplora doctor: note: AdamW updates 2 fp16 parameter(s)" in proc.stderr
    assert json.loads(out.read_text())["notes"][0].startswith("AdamW updates 2 fp16")
    script.write_text(script.read_text().replace(".half()", ""))  # fp32: nothing to note
    proc = amplora_cli("doctor", "run", str(script))
    assert proc.returncode == 0 and "amplora doctor" not in proc.stderr


def test_zeros_of_a_half_matmul_that_fp32_would_not_make_are_followed_to_their_log():
    """Probabilities propagated by a matrix product alone (no elementwise factor) underflow in fp16 like any product."""
    import amplora.doctor as doctor

    def score(a, b):
        p = a @ b
        return torch.log(p.float()).sum()

    a, b = torch.full((2, 4), 1e-5).half(), torch.full((4, 3), 1e-5).half()  # products of 4e-10: 0 in fp16
    with doctor.watch() as w, torch.no_grad():
        assert math.isinf(float(score(a, b)))
    d = w.nonfinite.as_dict()
    assert d["op"] == "aten.log" and "zeros born in fp16" in d["culprit"] and "`p = a @ b`" in d["culprit"]
    with doctor.watch() as w, torch.no_grad():
        score(a.float(), b.float())  # fp32 holds 4e-10: nothing to say
    assert w.nonfinite is None
