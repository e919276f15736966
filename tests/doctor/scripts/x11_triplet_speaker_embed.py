import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(9)

N_SPK, FEAT, EMB = 20, 40, 64


def make_utterances(n_per, protos):
    spk = torch.arange(N_SPK).repeat_interleave(n_per)
    frames = protos[spk].unsqueeze(1) + 2.5 * torch.randn(len(spk), 20, FEAT)
    return frames, spk


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.frame = nn.Sequential(nn.Linear(FEAT, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU())
        self.head = nn.Linear(256, EMB)

    def forward(self, x):
        h = self.frame(x)
        stats = torch.cat([h.mean(1), h.std(1)], dim=-1)
        return self.head(stats)


def sample_triplets(labels, n):
    a = torch.randint(0, len(labels), (n,))
    pos, neg = [], []
    for i in a.tolist():
        same = (labels == labels[i]).nonzero().squeeze(1)
        diff = (labels != labels[i]).nonzero().squeeze(1)
        pos.append(same[torch.randint(0, len(same), (1,))])
        neg.append(diff[torch.randint(0, len(diff), (1,))])
    return a, torch.cat(pos), torch.cat(neg)


def euclidean(a, b, eps=1e-12):
    return ((a - b).pow(2).sum(-1) + eps).sqrt()


def triplet_loss(ea, ep, en, margin=0.5):
    return F.relu(euclidean(ea, ep) - euclidean(ea, en) + margin).mean()


def nearest_neighbour_acc(model, frames, spk):
    with torch.no_grad():
        e = F.normalize(model(frames), dim=-1)
        sim = (e @ e.t()).fill_diagonal_(-2.0)
        return (spk[sim.argmax(1)] == spk).float().mean().item()


def main():
    protos = torch.randn(N_SPK, FEAT)
    frames, spk = make_utterances(12, protos)
    val_frames, val_spk = make_utterances(4, protos)
    model = Encoder()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(100):
        a, p, n = sample_triplets(spk, 64)
        with torch.autocast("cpu", dtype=torch.float16):
            emb = model(frames[torch.cat([a, p, n])])
            ea, ep, en = emb.chunk(3)
            loss = triplet_loss(ea, ep, en)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == 99:
            print(f"step {step} triplet loss {loss.item():.4f}")
    print(f"1-nn speaker id acc {nearest_neighbour_acc(model, val_frames, val_spk):.3f}")


if __name__ == "__main__":
    main()
