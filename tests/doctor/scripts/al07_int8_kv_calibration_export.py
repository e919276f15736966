import json
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS = 384, 128, 8, 3
HD = D // HEADS


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(D, D, bias=False)
        self.k_proj = nn.Linear(D, D, bias=False)
        self.v_proj = nn.Linear(D, D, bias=False)
        self.o_proj = nn.Linear(D, D, bias=False)

    def forward(self, x):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, HEADS, HD).transpose(1, 2)
        k = self.k_proj(x).view(b, t, HEADS, HD).transpose(1, 2)
        v = self.v_proj(x).view(b, t, HEADS, HD).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(y.transpose(1, 2).reshape(b, t, D))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_norm = nn.RMSNorm(D)
        self.post_norm = nn.RMSNorm(D)
        self.self_attn = SelfAttention()
        self.mlp = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(approximate="tanh"), nn.Linear(4 * D, D))

    def forward(self, x):
        x = x + self.self_attn(self.input_norm(x))
        return x + self.mlp(self.post_norm(x))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList(Layer() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        h = self.embed(ids)
        for layer in self.layers:
            h = layer(h)
        return self.lm_head(self.norm(h))


class KVObserver:
    def __init__(self, model):
        self.samples = {}
        self.handles = []
        for i, layer in enumerate(model.layers):
            for kind in ("k", "v"):
                proj = getattr(layer.self_attn, f"{kind}_proj")
                self.handles.append(proj.register_forward_hook(self._hook(f"layers.{i}.{kind}")))

    def _hook(self, name):
        def fn(module, inputs, output):
            per_head = output.detach().reshape(-1, HEADS, HD).transpose(0, 1).reshape(HEADS, -1)
            self.samples.setdefault(name, []).append(per_head.abs())
        return fn

    def scales(self, pct=0.999):
        out = {}
        for name, chunks in self.samples.items():
            acts = torch.cat(chunks, dim=1)
            out[name] = torch.quantile(acts, pct, dim=1) / 127.0
        return out

    def remove(self):
        for h in self.handles:
            h.remove()


model = LM().half().eval()
observer = KVObserver(model)
calib = [torch.randint(0, VOCAB, (4, 64)) for _ in range(6)]
with torch.no_grad():
    for i, batch in enumerate(calib):
        logits = model(batch)
        loss = F.cross_entropy(logits[:, :-1].float().reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        print(f"calibration batch {i}: lm loss {loss.item():.4f}")
observer.remove()

kv_scales = observer.scales()
export_dir = tempfile.mkdtemp(prefix="kv_int8_")
meta = {"num_layers": LAYERS, "num_heads": HEADS, "head_dim": HD, "dtype": "int8", "granularity": "per_head"}
torch.save({k: v.float() for k, v in kv_scales.items()}, os.path.join(export_dir, "kv_scales.pt"))
with open(os.path.join(export_dir, "kv_cache_config.json"), "w") as f:
    json.dump(meta, f, indent=2)

with torch.no_grad():
    x = model.embed(calib[0][:1])
    k = model.layers[0].self_attn.k_proj(model.layers[0].input_norm(x)).view(-1, HEADS, HD)
    s = kv_scales["layers.0.k"].to(k.dtype)[None, :, None]
    k_q = torch.clamp(torch.round(k / s), -127, 127).to(torch.int8)
    err = (k_q.to(k.dtype) * s - k).float().abs().max()
print("exported to", export_dir, "- layer0 K max round-trip error", err.item())
