import torch
import torch.nn as nn
import torch.nn.functional as F

PREC = 16
RANS_L = 1 << 31
MAX_SYMBOL = 12


class FactorizedCodec(nn.Module):
    def __init__(self, N=32, M=16):
        super().__init__()
        self.g_a = nn.Sequential(
            nn.Conv2d(3, N, 5, 2, 2), nn.GELU(), nn.Conv2d(N, N, 5, 2, 2), nn.GELU(), nn.Conv2d(N, M, 5, 2, 2))
        self.g_s = nn.Sequential(
            nn.ConvTranspose2d(M, N, 5, 2, 2, 1), nn.GELU(), nn.ConvTranspose2d(N, N, 5, 2, 2, 1), nn.GELU(),
            nn.ConvTranspose2d(N, 3, 5, 2, 2, 1))
        self.loc = nn.Parameter(torch.zeros(M))
        self.log_scale = nn.Parameter(torch.zeros(M))

    def likelihood(self, y_hat):
        loc, s = self.loc.view(1, -1, 1, 1), self.log_scale.exp().view(1, -1, 1, 1)
        return (torch.sigmoid((y_hat - loc + 0.5) / s) - torch.sigmoid((y_hat - loc - 0.5) / s)).clamp_min(1e-9)

    def forward(self, x):
        y = self.g_a(x)
        y_hat = y + torch.empty_like(y).uniform_(-0.5, 0.5) if self.training else torch.round(y)
        return self.g_s(y_hat), self.likelihood(y_hat)

    @torch.no_grad()
    def cdf_tables(self):
        symbols = torch.arange(-MAX_SYMBOL, MAX_SYMBOL + 1, dtype=torch.float32)
        pmf = self.likelihood(symbols.view(1, 1, -1, 1).expand(1, self.loc.numel(), -1, 1))[0, :, :, 0]
        nsym = symbols.numel()
        freq = torch.floor(pmf / pmf.sum(1, keepdim=True) * ((1 << PREC) - nsym)).int() + 1
        freq[torch.arange(freq.shape[0]), freq.argmax(1)] += (1 << PREC) - freq.sum(1).int()
        return torch.cat([torch.zeros(freq.shape[0], 1, dtype=torch.int32), freq.cumsum(1).int()], dim=1)


def rans_encode(starts, freqs):
    x, words = RANS_L, []
    for start, freq in zip(reversed(starts), reversed(freqs)):
        x_max = ((RANS_L >> PREC) << 32) * freq
        while x >= x_max:
            words.append(x & 0xFFFFFFFF)
            x >>= 32
        x = ((x // freq) << PREC) + (x % freq) + start
    words += [x & 0xFFFFFFFF, x >> 32]
    return words[::-1]


def rans_decode(words, cdf_rows):
    words = list(words)
    x = (words.pop(0) << 32) | words.pop(0)
    out = []
    for row in cdf_rows:
        slot = x & ((1 << PREC) - 1)
        s = next(i for i in range(len(row) - 1) if row[i + 1] > slot)
        x = (row[s + 1] - row[s]) * (x >> PREC) + slot - row[s]
        while x < RANS_L:
            x = (x << 32) | words.pop(0)
        out.append(s)
    return out


def compress(model, x, cdf):
    y_hat = torch.round(model.g_a(x)).clamp(-MAX_SYMBOL, MAX_SYMBOL)
    channels = torch.arange(y_hat.shape[1]).view(1, -1, 1, 1).expand_as(y_hat).reshape(-1)
    symbols = (y_hat + MAX_SYMBOL).reshape(-1)
    starts = cdf[channels, symbols]
    freqs = cdf[channels, symbols + 1] - starts
    words = rans_encode(starts.tolist(), freqs.tolist())
    return words, y_hat, channels


def main():
    torch.manual_seed(0)
    images = F.avg_pool2d(torch.rand(40, 3, 32, 32), 5, stride=1, padding=2)
    train, test = images[:32], images[32:]
    model = FactorizedCodec()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    for step in range(20):
        x = train[(step % 4) * 8:(step % 4) * 8 + 8]
        x_hat, lik = model(x)
        bpp = -torch.log2(lik).sum() / (x.shape[0] * 32 * 32)
        loss = 0.01 * 255 ** 2 * F.mse_loss(x_hat, x) + bpp
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step}: loss {loss.item():.4f} bpp {bpp.item():.4f}")

    model.eval()
    cdf = model.cdf_tables()
    with torch.no_grad():
        for i in range(test.shape[0]):
            x = test[i:i + 1]
            words, y_hat, channels = compress(model, x, cdf)
            decoded = rans_decode(words, cdf[channels].tolist())
            ok = torch.equal(torch.tensor(decoded) - MAX_SYMBOL, y_hat.reshape(-1).long())
            est = -torch.log2(model.likelihood(y_hat)).sum().item() / (32 * 32)
            print(f"image {i}: {len(words) * 32 / (32 * 32):.3f} bpp actual, {est:.3f} estimated, lossless={ok}")


if __name__ == "__main__":
    main()
