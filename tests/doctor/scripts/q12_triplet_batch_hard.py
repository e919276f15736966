import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_SPK, PER_SPK, N_BINS, FRAMES = 16, 4, 40, 40
amp_dtype = torch.float16


class SpeakerEmbedder(nn.Module):
    def __init__(self, dim=128):
        super().__init__()
        self.frame_net = nn.Sequential(nn.Linear(N_BINS, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.embed = nn.Linear(256, dim)

    def forward(self, spec):
        h = self.frame_net(spec.transpose(1, 2))
        stats = torch.cat([h.mean(1), h.std(1)], dim=-1)
        return self.embed(stats)


def batch_hard_triplet(emb, labels, margin=0.3):
    sq = emb.pow(2).sum(-1)
    dist = (sq[:, None] + sq[None, :] - 2 * emb @ emb.t()).clamp(min=0)
    same = labels[:, None] == labels[None, :]
    hardest_pos = dist.masked_fill(~same, 0).amax(1)
    hardest_neg = dist.masked_fill(same, float("inf")).amin(1)
    return F.relu(hardest_pos - hardest_neg + margin).mean(), hardest_pos.mean(), hardest_neg.mean()


common = rng.normal(5.0, 1.0, size=(1, N_BINS, 1))
envelopes = np.exp(common + rng.normal(0.0, 0.25, size=(N_SPK * 4, N_BINS, 1)))


def utterance(spk):
    gains = rng.lognormal(0.0, 0.5, size=(1, FRAMES))
    voiced = rng.random((1, FRAMES)) < 0.7
    noise = rng.exponential(20.0, size=(N_BINS, FRAMES))
    return envelopes[spk] * gains * voiced + noise


def pk_batch(spks):
    specs = [utterance(s) for s in spks for _ in range(PER_SPK)]
    labels = [s for s in spks for _ in range(PER_SPK)]
    return torch.tensor(np.stack(specs), dtype=torch.float32), torch.tensor(labels)


model = SpeakerEmbedder()
opt = torch.optim.Adam(model.parameters(), lr=3e-4)
train_spk = np.arange(N_SPK * 3)
for step in range(60):
    x, y = pk_batch(rng.choice(train_spk, N_SPK, replace=False))
    with torch.autocast("cpu", dtype=amp_dtype):
        emb = model(x)
        loss, dp, dn = batch_hard_triplet(emb, y)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
    opt.step()
    if step % 15 == 0:
        print(f"step {step:3d} triplet {loss.item():.4f}  d+ {dp.item():.1f}  d- {dn.item():.1f}")

# verification-style retrieval on held-out speakers
model.eval()
with torch.no_grad():
    x, y = pk_batch(np.arange(N_SPK * 3, N_SPK * 4))
    e = F.normalize(model(x).float(), dim=-1)
    sim = e @ e.t()
    sim.fill_diagonal_(-2)
    top1 = (y[sim.argmax(1)] == y).float().mean().item()
print(f"final loss {loss.item():.4f}  held-out top-1 {top1:.3f}")
