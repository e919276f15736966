import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)


def chamfer(a, b):
    d = torch.cdist(a.float(), b.float()) ** 2
    return d.min(2).values.mean() + d.min(1).values.mean()


class PointNetEncoder(nn.Module):
    def __init__(self, latent=64):
        super().__init__()
        self.mlp = nn.Sequential(nn.Conv1d(3, 64, 1), nn.ReLU(), nn.Conv1d(64, 128, 1), nn.ReLU(),
                                 nn.Conv1d(128, latent, 1))

    def forward(self, pts):
        return self.mlp(pts.transpose(1, 2)).max(-1).values


class FoldingDecoder(nn.Module):
    def __init__(self, latent=64, n_out=256):
        super().__init__()
        self.n_out = n_out
        self.net = nn.Sequential(nn.Linear(latent, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                                 nn.Linear(256, n_out * 3))

    def forward(self, z):
        return self.net(z).view(-1, self.n_out, 3)


class PCAutoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = PointNetEncoder()
        self.decoder = FoldingDecoder()

    def forward(self, pts):
        return self.decoder(self.encoder(pts))


class PrimitiveClouds(Dataset):
    def __init__(self, n=64, npts=256):
        self.clouds = []
        g = torch.Generator().manual_seed(1)
        for i in range(n):
            kind = i % 3
            if kind == 0:
                p = torch.randn(npts, 3, generator=g)
                p = p / p.norm(dim=-1, keepdim=True)
            elif kind == 1:
                p = torch.rand(npts, 3, generator=g) * 2 - 1
                face = torch.randint(0, 3, (npts,), generator=g)
                p[torch.arange(npts), face] = torch.sign(p[torch.arange(npts), face])
            else:
                t = torch.rand(npts, generator=g) * 6.2832
                h = torch.rand(npts, generator=g) * 2 - 1
                p = torch.stack([torch.cos(t), h, torch.sin(t)], -1)
            scale = 0.5 + 0.5 * torch.rand(1, generator=g)
            self.clouds.append(p * scale)

    def __len__(self):
        return len(self.clouds)

    def __getitem__(self, i):
        return self.clouds[i]


def main():
    model = PCAutoEncoder().half()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(PrimitiveClouds(), batch_size=16, shuffle=True)
    for epoch in range(4):
        running = 0.0
        for pts in loader:
            recon = model(pts.half())
            loss = chamfer(recon, pts)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
        print(f"epoch {epoch} chamfer {running / len(loader):.5f}")
    with torch.no_grad():
        sample = model(loader.dataset[0][None].half())
    print("recon range", sample.float().min().item(), sample.float().max().item())


if __name__ == "__main__":
    main()
