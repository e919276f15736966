"""Tiny BART trained to reverse digit strings with bf16 autocast; an fp32 EMA of the
weights is used for evaluation (loss accumulated in float64) and greedy generation,
both under the same bf16 autocast as training."""
import copy
import torch
from transformers import BartConfig, BartForConditionalGeneration

torch.manual_seed(0)
PAD, EOS, START = 0, 1, 2          # digits are tokens 3..12
L, BS = 8, 32

cfg = BartConfig(vocab_size=16, d_model=64, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                 decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128, max_position_embeddings=32,
                 pad_token_id=PAD, eos_token_id=EOS, bos_token_id=START, decoder_start_token_id=START,
                 forced_eos_token_id=None, dropout=0.0, attention_dropout=0.0)
model = BartForConditionalGeneration(cfg)
ema = copy.deepcopy(model).eval()
for p in ema.parameters():
    p.requires_grad_(False)
EMA_DECAY = 0.98


def batch(n, gen=None):
    digits = torch.randint(3, 13, (n, L), generator=gen)
    eos = torch.full((n, 1), EOS)
    return torch.cat([digits, eos], 1), torch.cat([digits.flip(1), eos], 1)


@torch.no_grad()
def ema_update():
    for pe, pm in zip(ema.parameters(), model.parameters()):
        pe.lerp_(pm, 1.0 - EMA_DECAY)


opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
scaler = torch.amp.GradScaler("cpu", enabled=False)  # bf16 needs no loss scaling
for step in range(150):
    src, tgt = batch(BS)
    model.train()
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        loss = model(input_ids=src, labels=tgt).loss
    opt.zero_grad(set_to_none=True)
    scaler.scale(loss).backward()
    scaler.unscale_(opt)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(opt)
    scaler.update()
    ema_update()
    if step % 50 == 0:
        print(f"step {step} loss {loss.item():.4f}")

g = torch.Generator().manual_seed(123)
total_nll, total_tok = 0.0, 0
with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.bfloat16):
    for _ in range(4):
        src, tgt = batch(64, g)
        out = ema(input_ids=src, labels=tgt)
        total_nll += out.loss.double().item() * tgt.numel()
        total_tok += tgt.numel()
    src, tgt = batch(64, g)
    pred = ema.generate(input_ids=src, max_new_tokens=L + 1, do_sample=False)
n = min(pred.shape[1] - 1, L)
exact = (pred[:, 1:n + 1] == tgt[:, :n]).all(1).float().mean().item()
print(f"EMA eval nll/token {total_nll / total_tok:.4f}  exact-match {exact:.3f}")
