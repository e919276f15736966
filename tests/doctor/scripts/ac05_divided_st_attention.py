import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

MAX_T, SIZE, PATCH, DIM, HEADS = 8, 32, 8, 64, 4
NUM_CLASSES = 6


def make_batch(bs):
    """Variable-length clips padded to MAX_T frames; mask marks real frames."""
    lengths = torch.randint(3, MAX_T + 1, (bs,))
    labels = torch.randint(0, NUM_CLASSES, (bs,))
    video = torch.zeros(bs, MAX_T, 3, SIZE, SIZE)
    mask = torch.zeros(bs, MAX_T)
    for i in range(bs):
        n = int(lengths[i])
        base = torch.randn(3, SIZE, SIZE) * 0.3
        for t in range(n):
            video[i, t] = base.roll(int(labels[i]) * t, dims=2)
        mask[i, :n] = 1
    return video, mask, labels


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)
        self.register_buffer("mask_value", torch.tensor(-1e9))

    def forward(self, x, key_mask=None):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5
        if key_mask is not None:
            scores = scores + (1.0 - key_mask[:, None, None, :]) * self.mask_value
        attn = scores.softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, n, d)
        return self.proj(out)


class DividedBlock(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.norm_t, self.norm_s, self.norm_m = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.temporal_attn = Attention(dim, heads)
        self.spatial_attn = Attention(dim, heads)
        self.mlp = nn.Sequential(nn.Linear(dim, dim * 4), nn.GELU(), nn.Linear(dim * 4, dim))

    def forward(self, x, frame_mask):
        b, t, p, d = x.shape
        xt = x.permute(0, 2, 1, 3).reshape(b * p, t, d)
        km = frame_mask.repeat_interleave(p, dim=0)
        xt = xt + self.temporal_attn(self.norm_t(xt), km)
        x = xt.view(b, p, t, d).permute(0, 2, 1, 3)
        xs = x.reshape(b * t, p, d)
        xs = xs + self.spatial_attn(self.norm_s(xs))
        x = xs.view(b, t, p, d)
        return x + self.mlp(self.norm_m(x))


class TinyTimeSformer(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        n_patches = (SIZE // PATCH) ** 2
        self.patch_embed = nn.Conv2d(3, DIM, PATCH, stride=PATCH)
        self.pos_embed = nn.Parameter(torch.randn(1, 1, n_patches, DIM) * 0.02)
        self.time_embed = nn.Parameter(torch.randn(1, MAX_T, 1, DIM) * 0.02)
        self.blocks = nn.ModuleList([DividedBlock(DIM, HEADS) for _ in range(depth)])
        self.norm = nn.LayerNorm(DIM)
        self.head = nn.Linear(DIM, NUM_CLASSES)

    def forward(self, video, frame_mask):
        b, t = video.shape[:2]
        x = self.patch_embed(video.flatten(0, 1)).flatten(2).transpose(1, 2)
        x = x.view(b, t, -1, DIM) + self.pos_embed + self.time_embed[:, :t]
        for blk in self.blocks:
            x = blk(x, frame_mask)
        x = self.norm(x).mean(2)
        w = frame_mask[..., None]
        pooled = (x * w).sum(1) / w.sum(1)
        return self.head(pooled)


def main():
    model = TinyTimeSformer().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(16):
        video, mask, labels = make_batch(8)
        logits = model(video.half(), mask.half())
        loss = F.cross_entropy(logits.float(), labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 4 == 0:
            print(f"step {step:2d} loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        video, mask, labels = make_batch(16)
        logits = model(video.half(), mask.half())
        acc = (logits.argmax(1) == labels).float().mean().item()
        print(f"eval loss {F.cross_entropy(logits.float(), labels).item():.4f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
