"""`amplora explain`: every knowledge-base entry recognised from real error text; extraction; unrecognized -> 3."""
from __future__ import annotations

import io
import json

import pytest

from amplora.cli import main
from amplora.doctor import explain
from amplora.doctor.kb import ENTRIES

S001_TRACEBACK = '''Traceback (most recent call last):
  File "train.py", line 88, in on_evaluate
    out = model.generate(**batch, max_new_tokens=32)
  File "/usr/lib/python3/site-packages/transformers/generation/utils.py", line 2215, in generate
    result = self._sample(
  File "/usr/lib/python3/site-packages/torch/nn/modules/linear.py", line 125, in forward
    return F.linear(input, self.weight, self.bias)
RuntimeError: expected mat1 and mat2 to have the same dtype, but got: float != c10::BFloat16
'''

S000_TRACEBACK = '''  File "/site-packages/peft/tuners/lora/dora.py", line 98, in forward
    lora_result = lora_B(lora_A(x))
  File "/site-packages/peft/tuners/lora/layer.py", line 620, in forward
    mag_norm_scale = (magnitude / weight_norm).view(1, -1)
RuntimeError: self and mat2 must have the same dtype, but got BFloat16 and Float
'''

S004_TRACEBACK = '''Traceback (most recent call last):
  File "finetuning.py", line 237, in train
    loss.backward()
  File "/site-packages/torch/_tensor.py", line 522, in backward
    torch.autograd.backward(
RuntimeError: expected mat1 and mat2 to have the same dtype, but got: c10::Half != float
'''

# (knowledge-base key, error text, dtypes the text mentions, an op it names or None)
SAMPLES = [
    ("unscale-fp16", "ValueError: Attempting to unscale FP16 gradients.", ["fp16"], "GradScaler.unscale_"),
    ("no-inf-checks", "AssertionError: No inf checks were recorded for this optimizer.", [], None),
    ("out-dtype", "RuntimeError: Expected out tensor to have dtype c10::BFloat16, but got float instead",
     ["bf16", "fp32"], "out= write"),
    ("out-dtype", "RuntimeError: result type Float can't be cast to the desired output type Long",
     ["fp32", "int64"], None),
    ("bf16-gpu-unsupported", "RuntimeError: Bfloat16 is only supported on GPUs with compute capability of at "
     "least 8.0. Your Tesla T4 GPU has compute capability 7.5", ["bf16"], None),
    ("bf16-gpu-unsupported", "ValueError: Your setup doesn't support bf16/gpu. You need torch>=1.10, using Ampere "
     "GPU with cuda>=11.0", ["bf16"], None),
    ("flash-attn-dtype", "RuntimeError: FlashAttention only support fp16 and bf16 data type", ["fp16", "bf16"], None),
    ("flash-attn-dtype", "ValueError: Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes, but "
     "the current dype in LlamaForCausalLM is torch.float32.", ["fp16", "bf16", "fp32"], None),
    ("attention-dtype", "RuntimeError: Expected query, key, and value to have the same dtype, but got query.dtype: "
     "float key.dtype: c10::BFloat16 and value.dtype: c10::BFloat16 instead.", ["fp32", "bf16"],
     "scaled_dot_product_attention"),
    ("s001-generate-outside-autocast", S001_TRACEBACK, ["fp32", "bf16"], "matmul (mm/addmm)"),
    ("s000-dora-magnitude", S000_TRACEBACK, ["bf16", "fp32"], "matmul (mm/addmm)"),
    ("s004-backward-mixed-amp", S004_TRACEBACK, ["fp16", "fp32"], "matmul (mm/addmm)"),
    ("matmul-dtype", "RuntimeError: self and mat2 must have the same dtype, but got BFloat16 and Float",
     ["bf16", "fp32"], "matmul (mm/addmm)"),
    ("matmul-dtype", "RuntimeError: expected m1 and m2 to have the same dtype, but got: float != c10::BFloat16",
     ["fp32", "bf16"], "matmul (mm/addmm)"),
    ("device-mismatch", "RuntimeError: Expected all tensors to be on the same device, but found at least two "
     "devices, cuda:0 and cpu! (when checking argument for argument mat1 in method wrapper_CUDA_addmm)", [], None),
    ("device-mismatch", "RuntimeError: Tensor on device cpu is not on the expected device meta!", [], None),
    ("device-mismatch", "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) "
     "should be the same or input should be a MKLDNN tensor and weight is a dense tensor", ["fp32"], "convolution"),
    ("conv-type", "RuntimeError: Input type (c10::BFloat16) and bias type (float) should be the same",
     ["bf16", "fp32"], "convolution"),
    ("conv-type", "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should "
     "be the same", ["fp16", "fp32"], "convolution"),
    ("cpu-half-kernel", 'RuntimeError: "addmm_impl_cpu_" not implemented for \'Half\'', ["fp16"], "addmm_impl_cpu_"),
    ("cpu-half-kernel", 'NotImplementedError: "linalg_svd_cpu" not implemented for \'BFloat16\'', ["bf16"],
     "linalg_svd_cpu"),
    ("cpu-half-kernel", "RuntimeError: linalg.inv: Low precision dtypes not supported. Got BFloat16", ["bf16"],
     "linalg.inv"),
    ("long-indices", "RuntimeError: Expected tensor for argument #1 'indices' to have one of the following scalar "
     "types: Long, Int; but got torch.FloatTensor instead (while checking arguments for embedding)",
     ["int64", "int32", "fp32"], "embedding"),
    ("long-indices", "IndexError: tensors used as indices must be long, int, byte or bool tensors", [], None),
    ("long-indices", "RuntimeError: expected scalar type Long but found Float", ["int64", "fp32"], None),
    ("index-dtype", "RuntimeError: scatter(): Expected self.dtype to be equal to src.dtype", [], "scatter"),
    ("index-dtype", "RuntimeError: Index put requires the source and destination dtypes match, got Float for the "
     "destination and Double for the source.", ["fp32", "fp64"], "index_put_"),
    ("index-dtype", "RuntimeError: index_add_(): self (Float) and source (Half) must have the same scalar type",
     ["fp32", "fp16"], "index_add_"),
    ("expected-scalar-type", "RuntimeError: expected scalar type Float but found Half", ["fp32", "fp16"], None),
    ("expected-scalar-type", "RuntimeError: expected scalar type BFloat16 but found Float", ["bf16", "fp32"], None),
    ("found-dtype-backward", "RuntimeError: Found dtype Float but expected Half", ["fp32", "fp16"], None),
    ("fp16-overflow", "RuntimeError: value cannot be converted to type c10::Half without overflow", ["fp16"], None),
    ("fp16-overflow", "RuntimeError: Function 'MmBackward0' returned nan values in its 0th output.", [],
     "MmBackward0"),
    ("numpy-bf16", "TypeError: Got unsupported ScalarType BFloat16", ["bf16"], "Tensor.numpy"),
    ("cpu-autocast-dtype", "UserWarning: In CPU autocast, but the target dtype is not supported. Disabling "
     "autocast.", [], None),
    ("generic-dtype", "RuntimeError: Expected dtype Half for argument 'weight' but got BFloat16", ["fp16", "bf16"],
     None),
]


@pytest.mark.parametrize("key,text,dtypes,op", SAMPLES, ids=[f"{s[0]}-{i}" for i, s in enumerate(SAMPLES)])
def test_each_entry_is_recognized(key, text, dtypes, op):
    e = explain(text)
    assert e.recognized and e.key == key, (e.key, text)
    assert e.cause and e.fix
    for d in dtypes:
        assert d in e.dtypes, (d, e.dtypes)
    if op is not None:
        assert op in e.ops, (op, e.ops)


def test_every_entry_has_a_sample():
    assert {e.key for e in ENTRIES} == {s[0] for s in SAMPLES}


def test_the_five_failures_are_referenced():
    refs = " ".join(explain(s[1]).ref for s in SAMPLES)
    for ref in ("S000", "S001", "S002", "S003", "S004"):
        assert ref in refs


def test_devices_are_extracted():
    e = explain("Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!")
    assert e.devices == ["cuda:0", "cpu"]


@pytest.mark.parametrize("text", ["ModuleNotFoundError: No module named 'foo'",
                                  "RuntimeError: mat1 and mat2 shapes cannot be multiplied (4x5 and 6x7)",
                                  "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"])
def test_unrecognized_exits_3_with_advice(text, capsys):
    assert main(["explain", text]) == 3
    out = capsys.readouterr().out
    assert "unrecognized" in out and "amplora doctor run" in out


def test_cli_explain_human_and_json(capsys):
    assert main(["explain", "Attempting to unscale FP16 gradients."]) == 0
    out = capsys.readouterr().out
    assert "cause" in out and "fix" in out and "fp32" in out
    assert main(["explain", "--json", "expected scalar type Float but found Half"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["recognized"] and data["key"] == "expected-scalar-type" and data["dtypes"] == ["fp32", "fp16"]


def test_cli_explain_reads_a_traceback_from_stdin(monkeypatch, capsys):
    monkeypatch.setattr("sys.stdin", io.StringIO(S001_TRACEBACK))
    assert main(["explain", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["key"] == "s001-generate-outside-autocast" and data["ref"] == "S001"
    assert data["error"].startswith("RuntimeError: expected mat1 and mat2")


def test_cli_explain_empty_input_is_a_one_line_error(capsys):
    assert main(["explain", "  "]) == 2
    assert capsys.readouterr().err.startswith("amplora: error: explain needs an error message")
