import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, SEQ = 128, 32
T_KD, ALPHA = 2.0, 0.7
LOSS_SCALE = 2.0 ** 16


class CausalLM(nn.Module):
    def __init__(self, dim, layers, heads):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, dim)
        self.pos = nn.Embedding(SEQ, dim)
        block = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(block, layers, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, VOCAB, bias=False)

    def forward(self, idx):
        T = idx.size(1)
        mask = torch.full((T, T), float("-inf")).triu(1).to(self.tok.weight.dtype)
        h = self.tok(idx) + self.pos(torch.arange(T))
        return self.lm_head(self.ln_f(self.blocks(h, mask=mask)))


def sample_batch(bs=16):
    a = torch.randint(0, VOCAB, (bs, 1))
    d = torch.randint(1, 8, (bs, 1))
    seq = (a + d * torch.arange(SEQ + 1)) % VOCAB
    return seq[:, :-1], seq[:, 1:]


def kd_loss(student_logits, teacher_logits, targets):
    s = F.log_softmax(student_logits / T_KD, dim=-1)
    t = F.softmax(teacher_logits / T_KD, dim=-1)
    kd = F.kl_div(s.reshape(-1, VOCAB), t.reshape(-1, VOCAB), reduction="batchmean") * T_KD**2
    ce = F.cross_entropy(student_logits.reshape(-1, VOCAB), targets.reshape(-1))
    return ALPHA * kd + (1 - ALPHA) * ce, kd, ce


teacher = CausalLM(dim=96, layers=3, heads=4)
t_opt = torch.optim.AdamW(teacher.parameters(), lr=2e-3)
for step in range(60):
    x, y = sample_batch()
    loss = F.cross_entropy(teacher(x).reshape(-1, VOCAB), y.reshape(-1))
    t_opt.zero_grad()
    loss.backward()
    t_opt.step()
teacher.eval().requires_grad_(False)
print(f"teacher loss {loss.item():.4f}")

student = CausalLM(dim=48, layers=2, heads=4).half()
s_opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
for step in range(30):
    x, y = sample_batch()
    with torch.no_grad():
        t_logits = teacher(x).to(torch.float16)
    s_logits = student(x)
    loss, kd, ce = kd_loss(s_logits, t_logits, y)
    s_opt.zero_grad(set_to_none=True)
    (loss * LOSS_SCALE).backward()
    for p in student.parameters():
        if p.grad is not None:
            p.grad.div_(LOSS_SCALE)
    torch.nn.utils.clip_grad_norm_(student.parameters(), 1.0)
    s_opt.step()
    if step % 10 == 0:
        print(f"step {step:2d} loss {loss.item():.4f} kd {kd.item():.4f} ce {ce.item():.4f}")
print(f"final student loss {loss.item():.4f}")
