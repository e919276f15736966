"""IA3 on a tiny T5 for sequence reversal, with a small hand-written Adam."""
import math

import torch
from transformers import T5Config, T5ForConditionalGeneration
from peft import IA3Config, get_peft_model

torch.manual_seed(0)
VOCAB, SRC, BS = 128, 12, 32
PAD, EOS = 0, 1

config = T5Config(
    vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2, num_heads=4,
    decoder_start_token_id=PAD, pad_token_id=PAD, eos_token_id=EOS,
)
base = T5ForConditionalGeneration(config).to(torch.float16)
ia3 = IA3Config(task_type="SEQ_2_SEQ_LM", target_modules=["k", "v", "wo"], feedforward_modules=["wo"])
model = get_peft_model(base, ia3, autocast_adapter_dtype=False)
model.print_trainable_parameters()


def reverse_batch(bs):
    src = torch.randint(2, VOCAB, (bs, SRC))
    tgt = torch.cat([src.flip(1), torch.full((bs, 1), EOS)], dim=1)
    return src, tgt


class Adam:
    def __init__(self, params, lr=1e-2, betas=(0.9, 0.999), eps=1e-8):
        self.params = [p for p in params if p.requires_grad]
        self.lr, (self.b1, self.b2), self.eps = lr, betas, eps
        self.m = [torch.zeros_like(p) for p in self.params]
        self.v = [torch.zeros_like(p) for p in self.params]
        self.t = 0

    @torch.no_grad()
    def step(self):
        self.t += 1
        c1 = 1 - self.b1 ** self.t
        c2 = 1 - self.b2 ** self.t
        for p, m, v in zip(self.params, self.m, self.v):
            if p.grad is None:
                continue
            g = p.grad
            m.mul_(self.b1).add_(g, alpha=1 - self.b1)
            v.mul_(self.b2).addcmul_(g, g, value=1 - self.b2)
            denom = (v / c2).sqrt().add_(self.eps)
            p.addcdiv_(m, denom, value=-self.lr / c1)

    def zero_grad(self):
        for p in self.params:
            p.grad = None


opt = Adam(model.parameters(), lr=5e-3)
for step in range(40):
    model.train()
    src, tgt = reverse_batch(BS)
    out = model(input_ids=src, attention_mask=torch.ones_like(src), labels=tgt)
    opt.zero_grad()
    out.loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} loss {out.loss.item():.4f}")

model.eval()
with torch.no_grad():
    src, tgt = reverse_batch(64)
    val = model(input_ids=src, attention_mask=torch.ones_like(src), labels=tgt).loss.item()
print(f"val loss {val:.4f} ppl {math.exp(min(val, 50)) if math.isfinite(val) else float('nan'):.2f}")
