import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ConvVAE(nn.Module):
    def __init__(self, latent_ch=4):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(3, 32, 4, stride=2, padding=1), nn.SiLU(),
            nn.Conv2d(32, 64, 3, padding=1), nn.SiLU(),
        )
        self.to_mu = nn.Conv2d(64, latent_ch, 1)
        self.to_logvar = nn.Conv2d(64, latent_ch, 1)
        self.decoder = nn.Sequential(
            nn.Conv2d(latent_ch, 64, 3, padding=1), nn.SiLU(),
            nn.ConvTranspose2d(64, 32, 4, stride=2, padding=1), nn.SiLU(),
            nn.Conv2d(32, 3, 3, padding=1),
        )

    def encode(self, x):
        h = self.encoder(x)
        return self.to_mu(h), self.to_logvar(h)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        return mu + std * torch.randn_like(std)

    def forward(self, x):
        mu, logvar = self.encode(x)
        z = self.reparameterize(mu, logvar)
        return torch.sigmoid(self.decoder(z)), mu, logvar


def vae_loss(recon, x, mu, logvar, beta=1.0):
    recon_loss = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return (recon_loss + beta * kld) / x.shape[0], recon_loss, kld


def synthetic_images(n, size=32):
    base = torch.linspace(0, 1, size)
    grad = base[None, :].expand(size, size)
    imgs = []
    for i in range(n):
        c = torch.rand(3, 1, 1)
        phase = torch.rand(1) * 6.28
        stripes = 0.5 + 0.5 * torch.sin(grad * 12 + phase)
        imgs.append((c * stripes + 0.05 * torch.randn(3, size, size)).clamp(0, 1))
    return torch.stack(imgs)


def main():
    dtype = torch.float16
    model = ConvVAE().to(dtype)
    data = synthetic_images(256).to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)
    batch_size = 128
    for epoch in range(2):
        perm = torch.randperm(data.shape[0])
        for i in range(0, data.shape[0], batch_size):
            x = data[perm[i:i + batch_size]]
            recon, mu, logvar = model(x)
            loss, rec, kld = vae_loss(recon, x, mu, logvar)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.3f} recon {rec.item():.1f} kld {kld.item():.2f}")

    with torch.no_grad():
        recon, mu, logvar = model(data[:128])
        loss, rec, kld = vae_loss(recon, data[:128], mu, logvar)
    print("eval loss", loss.item())


if __name__ == "__main__":
    main()
