import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class FastSigmoidSpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v, slope):
        ctx.save_for_backward(v)
        ctx.slope = slope
        return (v > 0).to(v.dtype)

    @staticmethod
    def backward(ctx, g):
        (v,) = ctx.saved_tensors
        return g / (1.0 + ctx.slope * v.abs()) ** 2, None


class LIFLayer(nn.Module):
    def __init__(self, n_in, n_out, tau=5.0, v_th=1.0, t_ref=1):
        super().__init__()
        self.fc = nn.Linear(n_in, n_out)
        self.decay = math.exp(-1.0 / tau)
        self.v_th = v_th
        self.t_ref = t_ref

    def forward(self, x_seq):
        T, B, _ = x_seq.shape
        n_out = self.fc.out_features
        v = torch.zeros(B, n_out, dtype=torch.float32)
        ref = torch.zeros(B, n_out, dtype=torch.int16)
        spikes = []
        for t in range(T):
            cur = self.fc(x_seq[t]).float()
            v = self.decay * v + cur * (ref == 0).float()
            s = FastSigmoidSpike.apply(v - self.v_th, 10.0)
            v = v - s * self.v_th
            ref = torch.where(s > 0, torch.full_like(ref, self.t_ref), (ref - 1).clamp_min(0))
            spikes.append(s)
        return torch.stack(spikes)


class SpikingMLP(nn.Module):
    def __init__(self, n_in=34, hidden=96, n_classes=6):
        super().__init__()
        self.l1 = LIFLayer(n_in, hidden)
        self.l2 = LIFLayer(hidden, hidden)
        self.out = nn.Linear(hidden, n_classes)

    def forward(self, x_seq):
        s1 = self.l1(x_seq)
        s2 = self.l2(s1)
        return self.out(s2.mean(0)), s1.mean(), s2.mean()


def poisson_dataset(n=384, T=20, n_in=34, n_classes=6):
    y = torch.randint(0, n_classes, (n,))
    proto = torch.rand(n_classes, n_in) * 0.6
    rates = proto[y]
    x = (torch.rand(n, T, n_in) < rates[:, None, :]).float()
    return x, y


x, y = poisson_dataset()
loader = DataLoader(TensorDataset(x, y), batch_size=48, shuffle=True)
model = SpikingMLP()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(4):
    tot_loss, tot_acc, n = 0.0, 0.0, 0
    for xb, yb in loader:
        xb = xb.transpose(0, 1)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits, r1, r2 = model(xb)
        loss = F.cross_entropy(logits.float(), yb) + 0.1 * (r1.float() - 0.05).pow(2) + 0.1 * (r2.float() - 0.05).pow(2)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tot_loss += loss.item() * yb.numel()
        tot_acc += (logits.argmax(-1) == yb).sum().item()
        n += yb.numel()
    print(f"epoch {epoch} loss {tot_loss / n:.4f} acc {tot_acc / n:.3f} rate1 {r1.item():.3f} rate2 {r2.item():.3f}")

model.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    logits, _, _ = model(x[:96].transpose(0, 1))
val_loss = F.cross_entropy(logits.float(), y[:96])
print(f"eval loss {val_loss.item():.4f} finite={torch.isfinite(val_loss).item()}")
