import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SpikeFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, v, threshold):
        ctx.save_for_backward(v)
        ctx.threshold = threshold
        return (v >= threshold).to(v.dtype)

    @staticmethod
    def backward(ctx, grad_out):
        (v,) = ctx.saved_tensors
        slope = 5.0
        sg = slope / (1.0 + (slope * (v - ctx.threshold)).abs()) ** 2
        return grad_out * sg, None


spike = SpikeFn.apply


class DendriticLIF(nn.Module):
    """LIF neurons with several dendritic branches each; branch currents are summed at the soma."""

    def __init__(self, n_in, n_hidden, n_branches=4, beta=0.9, threshold=1.0, refractory=2):
        super().__init__()
        self.syn = nn.Linear(n_in, n_hidden * n_branches)
        self.rec = nn.Linear(n_hidden, n_hidden, bias=False)
        nn.init.orthogonal_(self.rec.weight, gain=0.5)
        self.register_buffer("branch_to_soma", torch.arange(n_hidden).repeat_interleave(n_branches))
        self.beta = beta
        self.threshold = threshold
        self.refractory = refractory
        self.n_hidden = n_hidden

    def forward(self, x_seq):
        T, B, _ = x_seq.shape
        mem = torch.zeros(B, self.n_hidden, device=x_seq.device)
        spk = torch.zeros(B, self.n_hidden, device=x_seq.device)
        ref = torch.zeros(B, self.n_hidden, dtype=torch.int32, device=x_seq.device)
        out = []
        for t in range(T):
            dend = F.relu(self.syn(x_seq[t]))
            soma = torch.zeros(B, self.n_hidden, device=x_seq.device).index_add_(1, self.branch_to_soma, dend)
            cur = soma + self.rec(spk)
            active = (ref == 0).to(cur.dtype)
            mem = self.beta * mem * (1 - spk) + cur * active
            spk = spike(mem, self.threshold)
            ref = torch.where(spk.bool(), torch.full_like(ref, self.refractory), (ref - 1).clamp(min=0))
            out.append(spk)
        return torch.stack(out)


class SNNClassifier(nn.Module):
    def __init__(self, n_in=40, n_hidden=96, n_classes=5):
        super().__init__()
        self.snn = DendriticLIF(n_in, n_hidden)
        self.readout = nn.Linear(n_hidden, n_classes)

    def forward(self, x_seq):
        spikes = self.snn(x_seq)
        rate = spikes.mean(0)
        return self.readout(rate), rate


def make_batch(batch=32, T=25, n_in=40, n_classes=5):
    y = torch.randint(0, n_classes, (batch,))
    base = torch.linspace(0, 1, n_in)
    rates = 0.05 + 0.4 * torch.sigmoid(8 * torch.sin(base[None] * math.pi * (y[:, None] + 1)))
    x = (torch.rand(T, batch, n_in) < rates[None]).float()
    return x, y


model = SNNClassifier()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)

for step in range(30):
    x, y = make_batch()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits, rate = model(x)
    loss = F.cross_entropy(logits.float(), y) + 0.01 * (rate.float().mean() - 0.1) ** 2
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 5 == 0:
        acc = (logits.argmax(-1) == y).float().mean().item()
        print(f"step {step:3d} loss {loss.item():.4f} acc {acc:.3f} rate {rate.float().mean().item():.3f}")

print("done")
