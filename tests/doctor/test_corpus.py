"""The corpus of faulty programs (tests/doctor/programs), each run two ways: in-process under `watch()` and as
`python -m amplora doctor run prog.py`. Each asserts phase, module path, culprit and fix."""
from __future__ import annotations

import pickle

import pytest

from .conftest import FAULTY_SPECS, run_program

FAULT_EXIT = 4

# program (and its args) -> what the diagnosis must say
CASES = {
    "upcast_norms_generate": dict(  # S001
        phase="generate", module="model.layers.0.self_attn.q_proj", op="aten.mm",
        culprit=["model.layers.0.input_layernorm", "LlamaRMSNorm", "fp32"],
        fix=["torch.autocast(\"cpu\", dtype=torch.bfloat16)", "model.generate"],
        operands={"fp32", "bf16"}, error="RuntimeError"),
    "fused_backward_out_buffer": dict(  # S002
        phase="backward", module="model.layers.1.mlp.down_proj", op="aten.addmm.out",
        culprit=["FusedLoRAFunction.backward", "fp32 result into a bf16 buffer", "out="],
        fix=["dtype=torch.float32", "grad.to(x.dtype)"], operands={"fp32", "bf16"}, error="RuntimeError"),
    "svd_half_init": dict(  # S003 (SVD)
        phase="init", module="model.layers.0.self_attn.q_proj", op="aten._linalg_svd",
        culprit=["parameter model.layers.0.self_attn.q_proj.weight", "fp16"],
        fix=["torch.linalg.svd(W.float()", ".to(torch.float16)"], operands={"fp16"}, error="NotImplementedError"),
    "svd_half_init --qr": dict(  # S003 (QR)
        phase="init", module="model.layers.0.self_attn.q_proj", op="aten.linalg_qr",
        culprit=["parameter model.layers.0.self_attn.q_proj.weight", "fp16"],
        fix=["torch.linalg.qr(W.float())"], operands={"fp16"}, error="NotImplementedError"),
    "fp16_trainable_gradscaler": dict(
        phase="loss-scaler step", module="model.layers.1.self_attn.v_proj", op=None,
        culprit=["model.layers.1.self_attn.v_proj.lora_A.weight (fp16)",
                 "model.layers.1.self_attn.v_proj.lora_B.weight (fp16)"],
        fix=["fp32", "p.data.float()"], operands=set(), error="ValueError"),
    "dora_fp32_magnitude": dict(  # S000
        phase="forward", module="model.layers.1.self_attn.o_proj", op="aten.mm",
        culprit=["model.layers.1.self_attn.o_proj.magnitude (fp32)", "off-policy"],
        fix=[".to(x.dtype)", "norm"], operands={"fp32", "bf16"}, error="RuntimeError"),
    "meta_device_mismatch": dict(
        phase="forward", module="model.layers.1.post_attention_layernorm", op="aten.mul",
        culprit=["on meta", "model.layers.1.post_attention_layernorm.weight"],
        fix=["to_empty", "load_state_dict"], operands={"fp32"}, error="RuntimeError"),
    "meta_partial_load_backward": dict(  # surfaces in the autograd engine, where no op names the tensor
        phase="backward", module="lm_head", op=None,
        culprit=["still on meta", "lm_head.weight"],
        fix=["missing_keys", "strict=True", "to_empty"], operands=set(), error="RuntimeError"),
    "offload_state_dict_copy": dict(  # a device_map offload: weights on meta outside their module's forward
        phase="step (outside any module)", module="model.layers.1", op="aten._to_copy",
        culprit=["offloaded by device_map (model.layers.1 → disk)", "model.layers.1.self_attn.q_proj.weight"],
        fix=["save_pretrained", "get_state_dict_offloaded_model"], operands={"fp32"}, error="NotImplementedError"),
    "peft_generate_outside_autocast": dict(  # S001 through PEFT
        phase="generate", module="base_model.model.model.layers.0.self_attn.q_proj.base_layer", op="aten.mm",
        culprit=["base_model.model.model.layers.0.input_layernorm", "fp32"],
        fix=["torch.autocast", "model.generate"], operands={"fp32", "bf16"}, error="RuntimeError"),
    "peft_fp16_adapters_gradscaler": dict(
        phase="loss-scaler step", module="base_model.model.model.layers.0.self_attn.q_proj", op=None,
        culprit=["base_model.model.model.layers.0.self_attn.q_proj.lora_A.default.weight (fp16)"],
        fix=["autocast_adapter_dtype=True", "fp32"], operands=set(), error="ValueError"),
    "fp8_base_dora_norm": dict(  # float8 storage meets an fp16 update: no promotion, autocast does not help
        phase="forward", module="0", op="aten.add.Tensor",
        culprit=["float8_e4m3fn"], fix=["w.to(torch.bfloat16)"], operands={"float8_e4m3fn", "fp16"},
        error="RuntimeError"),
    "fp8_cpu_arithmetic": dict(  # arithmetic in a storage dtype
        phase="init", module=None, op="aten.mul.Tensor",
        culprit=["float8_e4m3fn"], fix=["upcast before arithmetic"], operands={"float8_e4m3fn"},
        error="NotImplementedError"),
    "optimizer_state_lerp": dict(  # a hand-written optimizer: fp32 moments, bf16 gradients
        phase="optimizer step", module="0", op="aten.lerp_",
        culprit=["optimizer state 'm' of 0.weight is fp32", "bf16"], fix=["fp32"], operands={"fp32", "bf16"},
        error="RuntimeError"),
    "scaler_unscale_twice": dict(  # the order of GradScaler calls, not a dtype
        phase="loss-scaler step", module=None, op=None,
        culprit=["GradScaler.unscale_ called twice", "scaler_unscale_twice.py:8 in clip"],
        fix=["Unscale once per optimizer step"], operands=set(), error="RuntimeError"),
    "ema_bf16_foreach": dict(  # an EMA copy cast to bf16 beside fp32 weights: two lists of weights in a foreach op
        phase="step (outside any module)", module="0", op="aten._foreach_lerp_",
        culprit=["`self` in bf16", "`tensors1` in fp32", "two lists of weights"], fix=["p.to(e.dtype)"],
        operands={"fp32", "bf16"}, error="RuntimeError"),
    "meta_nonpersistent_buffer": dict(  # a non-persistent buffer that load_state_dict(assign=True) never replaced
        phase="forward", module="Rotary", op="aten.mul",
        culprit=["buffer(s) still on meta", "freqs"], fix=["Recompute such buffers", "to_empty(device='cpu')"],
        operands={"fp32"}, error="RuntimeError"),
    "kv_cache_fp32_buffer": dict(  # a cache registered after the model was cast keeps the default dtype
        phase="forward", module="Attention", op="aten.index_copy_",
        culprit=["buffer cache.k_cache is fp32"], fix=["dtype=torch.bfloat16"], operands={"fp32", "bf16"},
        error="RuntimeError"),
    "sample_fp16_temperature": dict(  # fp16 logits divided by a tiny temperature: NaN probabilities
        phase="step (outside any module)", module=None, op="aten.multinomial",
        culprit=["fp16"], fix=["logits.float() / temperature"], operands={"fp16"}, error="RuntimeError"),
    "numpy_float64_schedule": dict(  # a NumPy noise schedule registered as float64 buffers
        phase="forward", module="net.0", op="aten.addmm",
        culprit=["float64 input passed into net.0"], fix=["torch.from_numpy(a).float()", "register `alphas_cumprod`"],
        operands={"float64", "fp32"}, error="RuntimeError"),
    "state_dict_average_int": dict(  # a float average written in place into BatchNorm's int64 counter
        phase="init", module=None, op="aten.mul_",
        culprit=["fp32 result into a int64 buffer"], fix=["v.is_floating_point()"], operands={"int64"},
        error="RuntimeError"),
    "plain_attribute_table": dict(  # an fp32 table kept as a plain attribute, left alone by .to(bf16)
        phase="forward", module="mix", op="aten.addmm",
        culprit=["fp32 input passed into mix"], fix=["register_buffer('pos'", "self.pos.to(x.dtype)"],
        operands={"fp32", "bf16"}, error="RuntimeError"),
    "stochastic_depth_fp32_mask": dict(  # a drop-path mask made fp32 inside a block promotes its bf16 output
        phase="forward", module="0.1.fc", op="aten.addmm",
        culprit=["0.0.drop_path (DropPath) inside 0.0 turned bf16 activations into fp32"], fix=["In DropPath"],
        operands={"fp32", "bf16"}, error="RuntimeError"),
    "assign_load_half_checkpoint": dict(  # a bf16 checkpoint loaded with assign=True into an fp32 model
        phase="forward", module="0", op="aten.addmm",
        culprit=["fp32 input passed into 0"], cause=["assign_load_half_checkpoint.py:15"],
        fix=["Load without `assign=True`"], operands={"fp32", "bf16"}, error="RuntimeError"),
    "moe_router_fp32_weights": dict(  # fp32 routing weights scale an expert's output added into a bf16 buffer
        phase="forward", module="MoE", op="aten.index_add_",
        culprit=["fp32 source computed in MoE's forward"], fix=["before index_add_"],
        operands={"fp32", "bf16"}, error="RuntimeError"),
}


def _check(d: dict, case: dict) -> None:
    assert d["phase"] == case["phase"]
    assert d["module"] == case["module"]
    if case["op"] is None:
        assert d["op"] is None
    else:
        assert d["op"].startswith(case["op"])
    for text in case["culprit"]:
        assert text in d["culprit"], (text, d["culprit"])
    for text in case["fix"]:
        assert text in d["fix"], (text, d["fix"])
    for text in case.get("cause", []):
        assert text in d["cause"], (text, d["cause"])
    assert {o["dtype"] for o in d["operands"]} >= case["operands"]
    for o in d["operands"]:
        assert o["device"] and isinstance(o["shape"], list)
    assert d["cause"].strip() and d["cause"].count(". ") == 0, "cause is one sentence"
    assert d["error"].startswith(case["error"] + ":")


@pytest.mark.parametrize("spec", list(CASES))
def test_watch_diagnoses(spec):
    name, *args = spec.split()
    fault, _ = run_program(name, *args)
    assert fault is not None, f"{name}: no PrecisionFault raised"
    _check(fault.as_dict(), CASES[spec])
    assert type(fault.__cause__).__name__ == CASES[spec]["error"]  # the original exception is kept
    assert fault.original is fault.__cause__
    text = str(fault)
    assert (CASES[spec]["module"] or "") in text and "fix" in text
    again = pickle.loads(pickle.dumps(fault))  # crosses process boundaries intact
    assert again.as_dict() == fault.as_dict()


def test_where_shows_the_key_the_failing_line_subscripts_with():
    fault, _ = run_program("state_dict_average_int")
    assert fault.as_dict()["where"].endswith("(name = '1.num_batches_tracked')")


def test_where_names_the_floating_operand_made_above_before_the_index():
    where = run_program("moe_router_fp32_weights")[0].as_dict()["where"]
    assert "expert_out = expert(x[token]) * routing_weights[token, slot, None], line 21" in where


def test_every_program_runs_as_a_subprocess_too():
    assert {spec.split()[0] for spec in CASES} == set(FAULTY_SPECS)


@pytest.mark.parametrize("spec", FAULTY_SPECS)
def test_doctor_run_diagnoses(spec, doctor_runs):
    proc, data = doctor_runs[spec].result()
    assert proc.returncode == FAULT_EXIT, proc.stderr[-3000:]
    _check(data["fault"], CASES[spec])
    assert "precision fault in " + CASES[spec]["phase"] in proc.stderr
    module = CASES[spec]["module"]
    assert module is None or module in proc.stderr.replace("\n", " ") or len(module) > 60
    assert "Traceback" not in proc.stderr  # the diagnosis replaces the bare traceback
