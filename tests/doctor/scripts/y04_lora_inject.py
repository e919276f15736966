import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, SEQ = 128, 96, 4, 2, 32


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.eps, self.scale = eps, nn.Parameter(torch.ones(d))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.scale


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(D, D, bias=False)
        self.k_proj = nn.Linear(D, D, bias=False)
        self.v_proj = nn.Linear(D, D, bias=False)
        self.o_proj = nn.Linear(D, D, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        q, k, v = (p(x).view(B, T, HEADS, -1).transpose(1, 2) for p in (self.q_proj, self.k_proj, self.v_proj))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(B, T, D))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_norm, self.post_norm = RMSNorm(D), RMSNorm(D)
        self.self_attn = Attention()
        self.up = nn.Linear(D, 4 * D, bias=False)
        self.down = nn.Linear(4 * D, D, bias=False)

    def forward(self, x):
        x = x + self.self_attn(self.input_norm(x))
        return x + self.down(F.gelu(self.up(self.post_norm(x))))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = RMSNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx):
        x = self.embed(idx)
        for layer in self.layers:
            x = layer(x)
        return self.head(self.norm(x))


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=8, alpha=16, dropout=0.05):
        super().__init__()
        self.base = base
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        self.dropout = nn.Dropout(dropout)
        self.scaling = alpha / r
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(self.dropout(x))) * self.scaling


def add_lora(model, targets=("q_proj", "v_proj"), **kw):
    for name, module in list(model.named_modules()):
        for child_name, child in list(module.named_children()):
            if child_name in targets and isinstance(child, nn.Linear):
                setattr(module, child_name, LoRALinear(child, **kw))
    for n, p in model.named_parameters():
        p.requires_grad = "lora_" in n
    return model


def batches(n_steps, bs=16, seed=1, max_stride=4):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n_steps):
        start = torch.randint(0, VOCAB, (bs, 1), generator=g)
        stride = torch.randint(1, max_stride, (bs, 1), generator=g)
        seq = (start + stride * torch.arange(SEQ + 1)) % VOCAB
        yield seq[:, :-1], seq[:, 1:]


base = Decoder()
pre_opt = torch.optim.AdamW(base.parameters(), lr=3e-3)
for x, y in batches(60, max_stride=3):
    pre_loss = F.cross_entropy(base(x).view(-1, VOCAB), y.reshape(-1))
    pre_opt.zero_grad()
    pre_loss.backward()
    pre_opt.step()
print(f"base pretrain loss {pre_loss.item():.4f}")

base = base.to(torch.bfloat16)
model = add_lora(base, r=8, alpha=16)
trainable = [p for p in model.parameters() if p.requires_grad]
print(f"trainable params: {sum(p.numel() for p in trainable)} / {sum(p.numel() for p in model.parameters())}")
opt = torch.optim.AdamW(trainable, lr=2e-3)

for step, (x, y) in enumerate(batches(40, seed=2, max_stride=6)):
    logits = model(x)
    loss = F.cross_entropy(logits.float().view(-1, VOCAB), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:3d} loss {loss.item():.4f}")
print(f"final loss {loss.item():.4f}")
