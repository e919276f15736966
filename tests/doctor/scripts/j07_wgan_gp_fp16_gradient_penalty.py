"""WGAN-GP (Gulrajani et al., 2017) on 16x16 synthetic textures.
Generator and critic are converted to fp16 with .half(); n_critic = 5.
"""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(7)
rng = np.random.default_rng(7)
NZ, LAMBDA_GP, N_CRITIC = 48, 10.0, 5


def make_textures(n):
    yy, xx = np.mgrid[0:16, 0:16]
    out = np.empty((n, 16, 16, 3), dtype=np.uint8)
    for i in range(n):
        period = rng.integers(3, 8)
        stripes = ((xx + rng.integers(0, period) * (yy % 2)) // period) % 2
        col = rng.integers(0, 256, size=(2, 3))
        out[i] = np.where(stripes[..., None] == 1, col[0], col[1])
    return out


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(NZ, 64 * 4 * 4), nn.ReLU())
        self.net = nn.Sequential(
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
            nn.Conv2d(16, 3, 3, 1, 1), nn.Tanh(),
        )

    def forward(self, z):
        return self.net(self.fc(z).view(-1, 64, 4, 4))


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 32, 4, 2, 1), nn.LeakyReLU(0.2),
            nn.Conv2d(32, 64, 4, 2, 1), nn.LeakyReLU(0.2),  # no batch norm in a WGAN-GP critic
            nn.Flatten(), nn.Linear(64 * 4 * 4, 1),
        )

    def forward(self, x):
        return self.net(x)


def compute_gradient_penalty(critic, real_samples, fake_samples):
    """Random weight term for interpolation between real and fake samples."""
    alpha = torch.rand(real_samples.size(0), 1, 1, 1)
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = critic(interpolates)
    gradients = torch.autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones_like(d_interpolates),
        create_graph=True,
        retain_graph=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


generator, critic = Generator().half(), Critic().half()
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-4, betas=(0.0, 0.9), eps=1e-4)
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9), eps=1e-4)
data = make_textures(512)

for it in range(20):
    for _ in range(N_CRITIC):
        idx = rng.integers(0, len(data), 32)
        real = (torch.from_numpy(data[idx]).permute(0, 3, 1, 2).float() / 127.5 - 1).half()
        z = torch.randn(32, NZ).half()
        fake = generator(z).detach()
        gp = compute_gradient_penalty(critic, real, fake)
        loss_c = critic(fake).mean() - critic(real).mean() + LAMBDA_GP * gp
        opt_c.zero_grad()
        loss_c.backward()
        opt_c.step()

    z = torch.randn(32, NZ).half()
    loss_g = -critic(generator(z)).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    if it % 5 == 0:
        print(f"it {it} critic {loss_c.item():.3f} gp {gp.item():.3f} gen {loss_g.item():.3f}")
print("done")
