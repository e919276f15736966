"""QAT (int8 weights, LSQ learned per-tensor scales, STE) of a tiny BART on a reversal task, then export of
the quantized weights as an fp16 safetensors file and reload for greedy decoding.

Clean script: QAT runs in fp32, the export casts once, and the reload goes into an fp32 model."""
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from transformers import BartConfig, BartForConditionalGeneration

torch.manual_seed(0)
QMAX = 127

config = BartConfig(vocab_size=200, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                    decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
                    max_position_embeddings=64, dropout=0.0, attention_dropout=0.0,
                    bos_token_id=0, pad_token_id=1, eos_token_id=2, decoder_start_token_id=2,
                    forced_eos_token_id=None, attn_implementation="eager")


class LSQLinear(nn.Module):
    def __init__(self, lin: nn.Linear):
        super().__init__()
        self.weight = lin.weight
        self.bias = lin.bias
        init = 2 * lin.weight.detach().abs().mean() / QMAX ** 0.5
        self.scale = nn.Parameter(init.clone())

    def quantized_weight(self):
        g = 1.0 / (self.weight.numel() * QMAX) ** 0.5
        s = self.scale * g + (self.scale - self.scale * g).detach()
        w = self.weight / s
        w = torch.clamp(w + (w.round() - w).detach(), -QMAX, QMAX)
        return w * s

    def forward(self, x):
        return F.linear(x, self.quantized_weight(), self.bias)


def attach_qat(model):
    for module in list(model.modules()):
        for name, child in list(module.named_children()):
            if isinstance(child, nn.Linear) and name != "lm_head":
                setattr(module, name, LSQLinear(child))
    return model


def batch(n=16, L=10):
    src = torch.randint(3, 200, (n, L))
    eos = torch.full((n, 1), 2, dtype=torch.long)
    return torch.cat([src, eos], 1), torch.cat([src.flip(1), eos], 1)


model = attach_qat(BartForConditionalGeneration(config))
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
model.train()
for step in range(30):
    src, tgt = batch()
    logits = model(input_ids=src, labels=tgt).logits
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), tgt.view(-1), label_smoothing=0.1)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:2d} loss {loss.item():.4f}")

# ---- export: bake the fake-quantized weights, store in fp16 ----
with torch.no_grad():
    state = {k: v.detach() for k, v in model.state_dict().items() if not k.endswith(".scale")}
    for name, module in model.named_modules():
        if isinstance(module, LSQLinear):
            state[f"{name}.weight"] = module.quantized_weight()
    export = {k: v.half().contiguous() for k, v in state.items()}

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "t5_int8_qat_fp16.safetensors")
    save_file(export, path)
    fresh = BartForConditionalGeneration(config)
    sd = {k: v.float() for k, v in load_file(path).items()}
    fresh.load_state_dict(sd, strict=True)
    fresh.eval()
    src, tgt = batch(4)
    with torch.no_grad():
        gen = fresh.generate(src, max_new_tokens=12, do_sample=False)
        ref_loss = fresh(input_ids=src, labels=tgt).loss
    print("reloaded loss", round(ref_loss.item(), 4), "generated", gen.shape)
    assert torch.isfinite(ref_loss)
