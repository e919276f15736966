import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, D_STATE, CHUNK, SEQ = 32, 64, 4, 16, 32, 128


def ssd_chunked(x, a, B, C, chunk):
    # x: (b, l, h, p)  a: (b, l, h)  B, C: (b, l, n)
    b, l, h, p = x.shape
    c = l // chunk
    x = x.reshape(b, c, chunk, h, p)
    a = a.reshape(b, c, chunk, h).permute(0, 3, 1, 2)
    B = B.reshape(b, c, chunk, -1)
    C = C.reshape(b, c, chunk, -1)
    a_cum = a.cumsum(-1)

    causal = torch.ones(chunk, chunk, dtype=torch.bool, device=x.device).tril()
    L = torch.exp(a_cum)[..., :, None] * torch.exp(-a_cum)[..., None, :]
    L = L.masked_fill(~causal, 0.0)
    y_diag = torch.einsum("bctn,bcsn,bhcts,bcshp->bcthp", C, B, L, x)

    decay_states = torch.exp(a_cum[..., -1:] - a_cum)
    states = torch.einsum("bcsn,bhcs,bcshp->bchpn", B, decay_states, x)
    chunk_decay = torch.exp(a_cum[..., -1])
    state = torch.zeros_like(states[:, 0])
    carried = []
    for i in range(c):
        carried.append(state)
        state = state * chunk_decay[:, :, i, None, None] + states[:, i]
    carried = torch.stack(carried, dim=1)
    y_off = torch.einsum("bctn,bchpn,bhct->bcthp", C, carried, torch.exp(a_cum))
    return (y_diag + y_off).reshape(b, l, h, p)


class SSDMixer(nn.Module):
    def __init__(self, d, heads, d_state, chunk):
        super().__init__()
        self.h, self.p, self.n, self.chunk = heads, d // heads, d_state, chunk
        self.in_proj = nn.Linear(d, 2 * d + 2 * d_state + heads)
        dt = torch.exp(torch.rand(heads) * (math.log(0.1) - math.log(1e-3)) + math.log(1e-3))
        self.dt_bias = nn.Parameter(dt + torch.log(-torch.expm1(-dt)))
        self.A_log = nn.Parameter(torch.log(torch.empty(heads).uniform_(1, 16)))
        self.D = nn.Parameter(torch.ones(heads))
        self.norm = nn.LayerNorm(d)
        self.out_proj = nn.Linear(d, d)

    def forward(self, u):
        b, l, d = u.shape
        z, x, B, C, dt = self.in_proj(u).split([d, d, self.n, self.n, self.h], dim=-1)
        dt = F.softplus(dt + self.dt_bias)
        A = -torch.exp(self.A_log)
        x = x.reshape(b, l, self.h, self.p)
        y = ssd_chunked(x * dt[..., None], dt * A, B, C, self.chunk)
        y = y + x * self.D[:, None]
        y = self.norm(y.reshape(b, l, d)) * F.silu(z)
        return self.out_proj(y)


class SSDLM(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList([SSDMixer(D, HEADS, D_STATE, CHUNK) for _ in range(n_layers)])
        self.lns = nn.ModuleList([nn.LayerNorm(D) for _ in range(n_layers)])
        self.ln_f = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        x = self.emb(ids)
        for ln, mixer in zip(self.lns, self.layers):
            x = x + mixer(ln(x))
        return self.lm_head(self.ln_f(x))


def sample(bs):
    # noisy periodic sequences: next token is predictable from the one `period` steps back
    period = torch.randint(2, 9, (bs, 1))
    base = torch.randint(0, VOCAB, (bs, 8))
    idx = torch.arange(SEQ + 1)[None] % period
    seq = torch.gather(base, 1, idx)
    noise = torch.rand(seq.shape) < 0.05
    seq = torch.where(noise, torch.randint_like(seq, VOCAB), seq)
    return seq[:, :-1], seq[:, 1:]


model = SSDLM()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=0.05)
for step in range(60):
    x, y = sample(16)
    loss = F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 15 == 0:
        print(f"step {step:2d} train loss {loss.item():.4f}")

# inference copy
model = model.half().eval()
tot, n = 0.0, 0
with torch.no_grad():
    for _ in range(4):
        x, y = sample(16)
        logits = model(x)
        tot += F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1), reduction="sum").item()
        n += y.numel()
val = tot / n
print(f"eval loss {val:.4f}  ppl {math.exp(val):.2f}")
