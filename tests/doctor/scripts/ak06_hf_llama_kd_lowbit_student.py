import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from accelerate import Accelerator
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
VOCAB, SEQ = 256, 32


class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w):
        ctx.save_for_backward(w)
        return torch.where(w >= 0, torch.ones_like(w), -torch.ones_like(w))

    @staticmethod
    def backward(ctx, g):
        (w,) = ctx.saved_tensors
        return g * (w.abs() <= 1).to(g.dtype)


class BinaryHead(nn.Linear):
    def __init__(self, src: nn.Linear):
        super().__init__(src.in_features, src.out_features, bias=False)
        self.weight.data.copy_(src.weight.data)

    def forward(self, x):
        return F.linear(x, SignSTE.apply(self.weight))


def synthetic_corpus(n=192):
    start = torch.randint(0, VOCAB, (n, 1))
    stride = torch.randint(1, 4, (n, 1))
    return (start + stride * torch.arange(SEQ)[None]) % VOCAB


def make_llama(hidden, layers):
    cfg = LlamaConfig(vocab_size=VOCAB, hidden_size=hidden, intermediate_size=hidden * 2, num_hidden_layers=layers,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=SEQ,
                      tie_word_embeddings=False)
    return LlamaForCausalLM(cfg)


data = synthetic_corpus()
loader = DataLoader(TensorDataset(data), batch_size=32, shuffle=True)

teacher = make_llama(128, 2)
t_opt = torch.optim.AdamW(teacher.parameters(), lr=3e-3)
for epoch in range(3):
    for (ids,) in loader:
        loss = teacher(input_ids=ids, labels=ids).loss
        t_opt.zero_grad()
        loss.backward()
        t_opt.step()
    print(f"teacher epoch {epoch} lm loss {loss.item():.4f}")
teacher.eval().requires_grad_(False)

student = make_llama(64, 2)
student.lm_head = BinaryHead(student.lm_head)
student = student.half()

accelerator = Accelerator(cpu=True)
opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
student, opt, loader = accelerator.prepare(student, opt, loader)

T, alpha = 2.0, 0.7
for epoch in range(2):
    for step, (ids,) in enumerate(loader):
        with torch.no_grad():
            t_logits = teacher(input_ids=ids).logits
        out = student(input_ids=ids, labels=ids)
        p_t = F.softmax(t_logits / T, dim=-1)
        log_p_s = torch.log(F.softmax(out.logits / T, dim=-1))
        kd = (p_t * (p_t.log() - log_p_s)).sum(-1).mean() * T * T
        loss = alpha * kd + (1 - alpha) * out.loss
        opt.zero_grad()
        accelerator.backward(loss)
        opt.step()
        if step % 4 == 0:
            print(f"student epoch {epoch} step {step} kd {kd.item():.4f} ce {out.loss.item():.4f} loss {loss.item():.4f}")
