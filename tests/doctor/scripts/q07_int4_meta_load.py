import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D_IN, HIDDEN, N_CLASSES, GROUP = 64, 128, 10, 32


class Int4Linear(nn.Module):
    def __init__(self, in_f, out_f, group=GROUP):
        super().__init__()
        self.in_f, self.out_f, self.group = in_f, out_f, group
        self.register_buffer("qweight", torch.zeros(out_f, in_f // 2, dtype=torch.uint8))
        self.register_buffer("scales", torch.zeros(out_f, in_f // group))
        self.register_buffer("zeros", torch.zeros(out_f, in_f // group))
        self.register_buffer("bias", torch.zeros(out_f))
        self.register_buffer("shifts", torch.tensor([0, 4], dtype=torch.uint8), persistent=False)

    @classmethod
    def from_linear(cls, lin, group=GROUP):
        q = cls(lin.in_features, lin.out_features, group)
        w = lin.weight.detach().reshape(lin.out_features, -1, group)
        wmin, wmax = w.amin(-1), w.amax(-1)
        scale = (wmax - wmin).clamp(min=1e-6) / 15
        zero = torch.round(-wmin / scale)
        codes = torch.clamp(torch.round(w / scale[..., None]) + zero[..., None], 0, 15).to(torch.uint8)
        codes = codes.reshape(lin.out_features, -1, 2)
        q.qweight.copy_(codes[..., 0] | (codes[..., 1] << 4))
        q.scales.copy_(scale)
        q.zeros.copy_(zero)
        q.bias.copy_(lin.bias.detach())
        return q

    def dequantize(self):
        codes = (self.qweight.unsqueeze(-1) >> self.shifts) & 0xF
        codes = codes.reshape(self.out_f, -1, self.group).float()
        w = (codes - self.zeros[..., None]) * self.scales[..., None]
        return w.reshape(self.out_f, self.in_f)

    def forward(self, x):
        return F.linear(x, self.dequantize(), self.bias)


def build(linear_cls):
    return nn.Sequential(linear_cls(D_IN, HIDDEN), nn.GELU(), linear_cls(HIDDEN, HIDDEN), nn.GELU(),
                         linear_cls(HIDDEN, N_CLASSES))


proto = torch.randn(N_CLASSES, D_IN)


def batch(n):
    y = torch.randint(0, N_CLASSES, (n,))
    return proto[y] + 0.8 * torch.randn(n, D_IN), y


fp_model = build(nn.Linear)
opt = torch.optim.Adam(fp_model.parameters(), lr=1e-3)
for step in range(300):
    x, y = batch(128)
    loss = F.cross_entropy(fp_model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"fp32 train loss {loss.item():.4f}")

q_model = nn.Sequential(*[Int4Linear.from_linear(m) if isinstance(m, nn.Linear) else m for m in fp_model])
ckpt = os.path.join(tempfile.mkdtemp(), "mlp_int4.pt")
torch.save(q_model.state_dict(), ckpt)
print(f"saved {os.path.getsize(ckpt) / 1024:.1f} KiB")

# deployment side: allocate nothing until the checkpoint is in
with torch.device("meta"):
    deployed = build(Int4Linear)
deployed.load_state_dict(torch.load(ckpt, map_location="cpu"), assign=True)
deployed.eval()

x, y = batch(2048)
with torch.no_grad():
    ref = fp_model(x)
    out = deployed(x)
agree = (ref.argmax(-1) == out.argmax(-1)).float().mean().item()
acc = (out.argmax(-1) == y).float().mean().item()
print(f"int4 acc {acc:.3f}  agreement with fp32 {agree:.3f}  max logit err {(ref - out).abs().max().item():.4f}")
