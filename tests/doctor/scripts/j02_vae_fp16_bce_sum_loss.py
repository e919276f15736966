"""MNIST-style fully connected VAE (the classic PyTorch example), run in half
precision with model.half() so a bigger batch fits.

Data: synthetic 28x28 "pen strokes" rendered into uint8 arrays, scaled to [0, 1].
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
rng = np.random.default_rng(1)

BATCH, EPOCHS, LATENT = 256, 2, 20


def render_strokes(n):
    imgs = np.zeros((n, 28, 28), dtype=np.uint8)
    for i in range(n):
        for _ in range(rng.integers(1, 4)):
            x0, y0, x1, y1 = rng.integers(4, 24, size=4)
            t = np.linspace(0.0, 1.0, 40)
            xs = np.round(x0 + (x1 - x0) * t).astype(int)
            ys = np.round(y0 + (y1 - y0) * t).astype(int)
            imgs[i, ys, xs] = 255
            imgs[i, np.clip(ys + 1, 0, 27), xs] = 180
    return imgs


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, LATENT)
        self.fc22 = nn.Linear(400, LATENT)
        self.fc3 = nn.Linear(LATENT, 400)
        self.fc4 = nn.Linear(400, 784)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


def loss_function(recon_x, x, mu, logvar):
    # Reconstruction + KL divergence losses summed over all elements and batch
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


model = VAE().half()
# the default eps=1e-8 rounds to zero in fp16, so use a larger one
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-4)

train_u8 = render_strokes(BATCH * 4)

for epoch in range(1, EPOCHS + 1):
    model.train()
    train_loss = 0.0
    perm = rng.permutation(len(train_u8))
    for batch_idx in range(len(train_u8) // BATCH):
        idx = perm[batch_idx * BATCH:(batch_idx + 1) * BATCH]
        data = torch.from_numpy(train_u8[idx]).float().div(255.0).half()
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
        print(f"epoch {epoch} batch {batch_idx} loss/sample {loss.item() / len(data):.4f}")
    print(f"====> Epoch: {epoch} Average loss: {train_loss / len(train_u8):.4f}")

model.eval()
with torch.no_grad():
    sample = model.decode(torch.randn(64, LATENT, dtype=torch.float16)).float()
    grid = (sample.view(8, 8, 28, 28).permute(0, 2, 1, 3).reshape(8 * 28, 8 * 28).numpy() * 255)
print("sample grid", grid.shape, "mean pixel", float(np.mean(grid)))
