import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DTYPE = torch.bfloat16
V, D = 200, 96


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, rank=8, alpha=16):
        super().__init__()
        self.base = base
        self.rank, self.scaling = rank, alpha / rank
        self.adapters = nn.ParameterDict()
        self.active = None
        self.merged = False

    def add_adapter(self, name):
        out_f, in_f = self.base.weight.shape
        self.adapters[f"{name}_A"] = nn.Parameter(torch.randn(self.rank, in_f, dtype=DTYPE) * 0.02)
        self.adapters[f"{name}_B"] = nn.Parameter(torch.zeros(out_f, self.rank, dtype=DTYPE))

    def delta(self, name):
        return (self.adapters[f"{name}_B"] @ self.adapters[f"{name}_A"]) * self.scaling

    def forward(self, x):
        y = self.base(x)
        if self.active is not None and not self.merged:
            A, B = self.adapters[f"{self.active}_A"], self.adapters[f"{self.active}_B"]
            y = y + (x @ A.t() @ B.t()) * self.scaling
        return y


class TinySummarizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(V, D)
        self.q_proj, self.v_proj = LoRALinear(nn.Linear(D, D)), LoRALinear(nn.Linear(D, D))
        self.ff = nn.Sequential(nn.Linear(D, 2 * D), nn.GELU(), nn.Linear(2 * D, D))
        self.lm_head = nn.Linear(D, V)

    def forward(self, ids):
        x = self.embed(ids)
        att = (self.q_proj(x) @ x.transpose(1, 2)) / D ** 0.5
        att = att.masked_fill(torch.ones(ids.shape[1], ids.shape[1], dtype=torch.bool).triu(1), float("-inf"))
        x = x + att.softmax(-1) @ self.v_proj(x)
        return self.lm_head(x + self.ff(x))

    def lora_layers(self):
        return [m for m in self.modules() if isinstance(m, LoRALinear)]


def task_batch(task, n=16, T=24):
    ids = torch.randint(10, V, (n, T))
    if task == "news":
        ids[:, 1::2] = (ids[:, 0::2] * 3) % V
    else:
        ids[:, 1:] = (ids[:, :-1] + 7) % V
    return ids


model = TinySummarizer().to(DTYPE)
model.requires_grad_(False)
for layer in model.lora_layers():
    for name in ("news", "dialog"):
        layer.add_adapter(name)

for task in ("news", "dialog"):
    params = [p for l in model.lora_layers() for n, p in l.adapters.items() if n.startswith(task)]
    opt = torch.optim.AdamW(params, lr=3e-3)
    for l in model.lora_layers():
        l.active = task
    for step in range(40):
        ids = task_batch(task)
        loss = F.cross_entropy(model(ids[:, :-1]).float().flatten(0, 1), ids[:, 1:].flatten())
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"adapter {task}: final loss {loss.item():.3f}")


@torch.no_grad()
def merge_adapters(layer, names, weights, new_name, rank):
    combined = sum(w * layer.delta(n) for n, w in zip(names, weights))
    U, S, Vh = torch.linalg.svd(combined, full_matrices=False)
    sqrt_s = S[:rank].sqrt()
    layer.adapters[f"{new_name}_B"] = nn.Parameter(U[:, :rank] * sqrt_s / layer.scaling)
    layer.adapters[f"{new_name}_A"] = nn.Parameter(sqrt_s[:, None] * Vh[:rank])


for layer in model.lora_layers():
    merge_adapters(layer, ["news", "dialog"], [0.5, 0.5], "mixed", rank=8)

with torch.no_grad():
    for l in model.lora_layers():
        l.active = "mixed"
        l.base.weight += l.delta("mixed")
        l.merged = True
    for task in ("news", "dialog"):
        ids = task_batch(task)
        loss = F.cross_entropy(model(ids[:, :-1]).float().flatten(0, 1), ids[:, 1:].flatten())
        print(f"merged adapter on {task}: loss {loss.item():.3f}")
    for l in model.lora_layers():
        l.base.weight -= l.delta("mixed")
        l.merged = False
