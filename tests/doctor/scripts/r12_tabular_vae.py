import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(12)
N_CAT = 6


def make_census(n=4000):
    group = rng.integers(0, N_CAT, n)
    age = rng.normal(38 + 3 * group, 9, n)
    income = np.exp(rng.normal(10.3 + 0.1 * group, 0.4, n))
    hours = rng.normal(40, 8, n) + 0.02 * (age - 38)
    commute = rng.gamma(2.0, 12.0, n)
    return np.column_stack([age, np.log(income), hours, commute]), group


class CensusRows(Dataset):
    def __init__(self, num, cat, mean, std):
        self.num = ((num - mean) / std).astype(np.float32)
        self.cat = cat.astype(np.int64)

    def __len__(self):
        return len(self.cat)

    def __getitem__(self, i):
        return torch.from_numpy(self.num[i]), torch.tensor(self.cat[i])


class TabularVAE(nn.Module):
    def __init__(self, n_num, n_cat, latent=4, hidden=64):
        super().__init__()
        self.cat_emb = nn.Embedding(n_cat, 8)
        self.encoder = nn.Sequential(nn.Linear(n_num + 8, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.to_mu = nn.Linear(hidden, latent)
        self.to_logvar = nn.Linear(hidden, latent)
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.num_head = nn.Linear(hidden, n_num)
        self.cat_head = nn.Linear(hidden, n_cat)

    def forward(self, num, cat):
        h = self.encoder(torch.cat([num, self.cat_emb(cat)], dim=-1))
        mu, logvar = self.to_mu(h).float(), self.to_logvar(h).float().clamp(-10, 10)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        d = self.decoder(z)
        return self.num_head(d), self.cat_head(d), mu, logvar


num, cat = make_census()
split = 3400
mean, std = num[:split].mean(0), num[:split].std(0)
train_dl = DataLoader(CensusRows(num[:split], cat[:split], mean, std), batch_size=128, shuffle=True)
val_ds = CensusRows(num[split:], cat[split:], mean, std)

model = TabularVAE(num.shape[1], N_CAT)
opt = torch.optim.Adam(model.parameters(), lr=2e-3)


def elbo_terms(num, cat, beta):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        num_hat, cat_logits, mu, logvar = model(num, cat)
    rec_num = F.mse_loss(num_hat.float(), num, reduction="none").sum(-1)
    rec_cat = F.cross_entropy(cat_logits.float(), cat, reduction="none")
    kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp()).sum(-1)
    return (rec_num + rec_cat + beta * kl).mean(), rec_num.mean(), kl.mean()


for epoch in range(8):
    beta = min(1.0, (epoch + 1) / 4)
    model.train()
    for xb, cb in train_dl:
        loss, _, _ = elbo_terms(xb, cb, beta)
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        vx, vc = torch.from_numpy(val_ds.num), torch.from_numpy(val_ds.cat)
        vloss, vrec, vkl = elbo_terms(vx, vc, 1.0)
    print(f"epoch {epoch} beta {beta:.2f} val_neg_elbo {vloss.item():.4f} rec {vrec.item():.4f} kl {vkl.item():.4f}")

with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    d = model.decoder(torch.randn(1000, 4))
    synth = model.num_head(d).float().numpy() * std + mean
print("synthetic column means", np.round(synth.mean(0), 2), "real", np.round(mean, 2))
