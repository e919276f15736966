import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, LAYERS, SEQ, BITS, GROUP = 128, 64, 2, 32, 4, 32


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv = nn.Linear(D, 3 * D)
        self.proj = nn.Linear(D, D)
        self.fc1 = nn.Linear(D, 4 * D)
        self.fc2 = nn.Linear(4 * D, D)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, 4, C // 4).permute(2, 0, 3, 1, 4)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, C))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(0.02 * torch.randn(SEQ, D))
        self.blocks = nn.Sequential(*[Block() for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx):
        return self.head(self.ln_f(self.blocks(self.emb(idx) + self.pos[: idx.size(1)])))


def data(n, g):
    a = torch.randint(0, VOCAB, (n, 1), generator=g)
    s = torch.randint(1, 6, (n, 1), generator=g)
    seq = (a + s * torch.arange(SEQ + 1)) % VOCAB
    return seq[:, :-1], seq[:, 1:]


@torch.no_grad()
def evaluate(model, x, y):
    return F.cross_entropy(model(x).float().reshape(-1, VOCAB), y.reshape(-1)).item()


class HessianHook:
    def __init__(self, layer):
        self.H, self.n = None, 0
        self.handle = layer.register_forward_hook(self)

    def __call__(self, module, inputs, output):
        inp = inputs[0].reshape(-1, inputs[0].shape[-1])
        b = inp.shape[0]
        xtx = 2.0 * inp.t() @ inp
        self.H = xtx / b if self.H is None else self.H * (self.n / (self.n + b)) + xtx / (self.n + b)
        self.n += b


def quantize_col(w, scale, zero):
    q = torch.clamp(torch.round(w / scale) + zero, 0, 2**BITS - 1)
    return scale * (q - zero)


@torch.no_grad()
def gptq_layer(layer, H, percdamp=0.01):
    W = layer.weight.data.clone()
    cols = W.shape[1]
    dead = torch.diag(H) == 0
    H[dead, dead] = 1
    W[:, dead] = 0
    H = H + percdamp * torch.diag(H).mean() * torch.eye(cols, dtype=H.dtype)
    Hinv = torch.linalg.cholesky(torch.cholesky_inverse(torch.linalg.cholesky(H)), upper=True)
    Q = torch.zeros_like(W)
    for i in range(cols):
        if i % GROUP == 0:
            g = W[:, i : i + GROUP]
            lo, hi = g.min(1).values.clamp(max=0), g.max(1).values.clamp(min=0)
            scale = ((hi - lo) / (2**BITS - 1)).clamp(min=1e-8)
            zero = torch.round(-lo / scale)
        q = quantize_col(W[:, i], scale, zero)
        Q[:, i] = q
        err = (W[:, i] - q) / Hinv[i, i]
        W[:, i:] -= err[:, None] * Hinv[i, i:][None, :]
    layer.weight.data.copy_(Q.to(layer.weight.dtype))


model = LM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
g = torch.Generator().manual_seed(0)
for step in range(80):
    x, y = data(32, g)
    loss = F.cross_entropy(model(x).reshape(-1, VOCAB), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()

x_eval, y_eval = data(64, g)
model = model.to(torch.bfloat16).eval()
print(f"bf16 eval loss {evaluate(model, x_eval, y_eval):.4f}")

calib_x, _ = data(64, g)
for blk in model.blocks:
    for name in ("qkv", "proj", "fc1", "fc2"):
        layer = getattr(blk, name)
        hook = HessianHook(layer)
        with torch.no_grad():
            model(calib_x)
        hook.handle.remove()
        gptq_layer(layer, hook.H)
print(f"int{BITS} gptq eval loss {evaluate(model, x_eval, y_eval):.4f}")
