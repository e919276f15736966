import math

import torch
import torch.nn as nn

torch.manual_seed(0)
S, T = 3, 60
TRUE_MEANS = torch.tensor([-2.0, 0.0, 2.0])
TRUE_A = torch.tensor([[0.90, 0.08, 0.02], [0.05, 0.90, 0.05], [0.02, 0.08, 0.90]])


def simulate(n, glitch_rate=0.0):
    x = torch.zeros(n, T)
    for b in range(n):
        s = int(torch.randint(0, S, ()))
        for t in range(T):
            x[b, t] = TRUE_MEANS[s] + 0.3 * torch.randn(())
            s = int(torch.multinomial(TRUE_A[s], 1))
    if glitch_rate > 0:
        spikes = torch.rand(n, T) < glitch_rate
        x = torch.where(spikes, x + 4.0 * torch.sign(torch.randn(n, T)), x)
    return x


class GaussianHMM(nn.Module):
    def __init__(self):
        super().__init__()
        self.init_logits = nn.Parameter(torch.zeros(S))
        self.trans_logits = nn.Parameter(torch.zeros(S, S))
        self.means = nn.Parameter(torch.linspace(-1.0, 1.0, S))
        self.log_std = nn.Parameter(torch.zeros(S))

    def emission_probs(self, x):
        z = (x.unsqueeze(-1) - self.means) / self.log_std.exp()
        return torch.exp(-0.5 * z * z - self.log_std - 0.5 * math.log(2 * math.pi))

    def forward(self, x):
        pi = self.init_logits.softmax(-1)
        A = self.trans_logits.softmax(-1)
        b = self.emission_probs(x)
        alpha = pi * b[:, 0]
        c = alpha.sum(-1, keepdim=True)
        alpha = alpha / (c + 1e-8)
        loglik = torch.log(c + 1e-8).squeeze(-1)
        for t in range(1, x.size(1)):
            alpha = (alpha @ A) * b[:, t]
            c = alpha.sum(-1, keepdim=True)
            alpha = alpha / (c + 1e-8)
            loglik = loglik + torch.log(c + 1e-8).squeeze(-1)
        return loglik


model = GaussianHMM()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
train = simulate(64)
for epoch in range(60):
    loss = -model(train).mean() / T
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 15 == 0:
        print(f"epoch {epoch} nll/frame {loss.item():.4f}")
print("learned means", [round(m, 3) for m in model.means.detach().tolist()])
print("learned stds", [round(s, 3) for s in model.log_std.detach().exp().tolist()])

model = model.half().eval()
dev = simulate(32, glitch_rate=0.03)
with torch.no_grad():
    ll = model(dev.half())
print("dev nll/frame", (-ll.float().mean() / T).item())
