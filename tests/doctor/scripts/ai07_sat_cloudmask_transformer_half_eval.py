import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(7)
rng = np.random.default_rng(7)
P, SIZE, NB = 4, 32, 4
CLEAR, CLOUD, FILL = 0, 1, 2


def synth_scene_tiles(n, swath_edge=False):
    tiles = rng.normal(1200, 200, (n, NB, SIZE, SIZE)).clip(1, 10000).astype(np.uint16)
    labels = np.zeros((n, SIZE, SIZE), dtype=np.int64)
    yy, xx = np.mgrid[:SIZE, :SIZE]
    for i in range(n):
        cy, cx, r = rng.integers(0, SIZE, 2).tolist() + [int(rng.integers(5, 12))]
        cloud = (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
        tiles[i, :, cloud] = rng.normal(6000, 400, (cloud.sum(), NB)).clip(1, 10000).astype(np.uint16)
        labels[i][cloud] = CLOUD
        edge = xx > SIZE - int(rng.integers(0, 12))
        tiles[i, :, edge] = 0
        labels[i][edge] = FILL
    if swath_edge:
        tiles[-1] = 0
        labels[-1] = FILL
    return tiles, labels


def to_tokens(tiles, labels):
    x = torch.from_numpy(tiles.astype(np.float32)) / 10000.0
    valid = torch.from_numpy((tiles > 0).all(1)).float()
    valid_tok = F.avg_pool2d(valid[:, None], P)[:, 0].flatten(1) > 0.5
    y = torch.from_numpy(labels)[:, P // 2::P, P // 2::P].flatten(1)
    return x, valid_tok, y


class MaskedBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x, key_valid):
        B, N, D = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(B, N, 3, self.h, D // self.h).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-2, -1) / (D // self.h) ** 0.5
        bias = (~key_valid)[:, None, None, :].to(scores.dtype) * -1e9
        attn = (scores + bias).softmax(-1)
        x = x + self.proj((attn @ v).transpose(1, 2).reshape(B, N, D))
        return x + self.mlp(self.norm2(x))


class CloudSegViT(nn.Module):
    def __init__(self, d=64, depth=2, heads=4):
        super().__init__()
        self.embed = nn.Conv2d(NB, d, P, stride=P)
        self.pos = nn.Parameter(torch.randn(1, (SIZE // P) ** 2, d) * 0.02)
        self.blocks = nn.ModuleList(MaskedBlock(d, heads) for _ in range(depth))
        self.head = nn.Linear(d, 3)

    def forward(self, x, key_valid):
        t = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        for blk in self.blocks:
            t = blk(t, key_valid)
        return self.head(t)


def main():
    model = CloudSegViT()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(40):
        x, valid, y = to_tokens(*synth_scene_tiles(8))
        loss = F.cross_entropy(model(x, valid).transpose(1, 2), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"train step {step:02d} loss {loss.item():.4f}")

    model = model.half().eval()
    x, valid, y = to_tokens(*synth_scene_tiles(8, swath_edge=True))
    with torch.no_grad():
        logits = model(x.half(), valid).float()
    val_loss = F.cross_entropy(logits.transpose(1, 2), y)
    pred = logits.argmax(-1)
    cloud_frac = (pred == CLOUD).float().mean().item()
    acc = (pred == y).float().mean().item()
    print(f"fp16 inference: val loss {val_loss.item():.4f} token acc {acc:.3f} cloud fraction {cloud_frac:.3f}")


if __name__ == "__main__":
    main()
