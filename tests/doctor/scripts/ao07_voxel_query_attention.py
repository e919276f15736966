import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
GRID = 4


def voxel_ids(pts, grid=GRID):
    cell = ((pts + 1.0) * 0.5 * grid).long().clamp(0, grid - 1)
    return cell[..., 0] * grid * grid + cell[..., 1] * grid + cell[..., 2]


def voxel_centers(grid=GRID):
    r = (torch.arange(grid) + 0.5) / grid * 2 - 1
    zz = torch.stack(torch.meshgrid(r, r, r, indexing="ij"), -1)
    return zz.reshape(-1, 3)


class VoxelQueryAttention(nn.Module):
    def __init__(self, dim=64, heads=4):
        super().__init__()
        self.heads, self.dh = heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, queries, feats, mask):
        B, Q, D = queries.shape
        N = feats.shape[1]
        q = self.q(queries).view(B, Q, self.heads, self.dh).transpose(1, 2)
        k, v = self.kv(feats).view(B, N, 2, self.heads, self.dh).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / self.dh ** 0.5
        bias = (1.0 - mask.to(scores.dtype)) * -1e9
        attn = torch.softmax(scores + bias[:, None], dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(B, Q, D)
        return self.proj(out)


class VoxelOccupancyNet(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.point_embed = nn.Sequential(nn.Linear(3, dim), nn.GELU(), nn.Linear(dim, dim))
        self.center_embed = nn.Linear(3, dim)
        self.query_tokens = nn.Parameter(torch.randn(GRID ** 3, dim) * 0.02)
        self.cross_attn = VoxelQueryAttention(dim)
        self.norm = nn.LayerNorm(dim)
        self.occ_head = nn.Linear(dim, 1)
        self.register_buffer("centers", voxel_centers())

    def forward(self, pts):
        B = pts.shape[0]
        feats = self.point_embed(pts)
        queries = (self.query_tokens + self.center_embed(self.centers)).expand(B, -1, -1)
        vid = voxel_ids(pts.float())
        mask = vid[:, None, :] == torch.arange(GRID ** 3)[None, :, None]
        h = queries + self.cross_attn(queries, feats, mask)
        return self.occ_head(self.norm(h)).squeeze(-1)


def sample_batch(B=8, N=384):
    d = torch.randn(B, N, 3)
    d = d / d.norm(dim=-1, keepdim=True)
    radius = 0.75 + 0.15 * torch.rand(B, 1, 1)
    pts = d * radius + 0.01 * torch.randn(B, N, 3)
    occ = torch.zeros(B, GRID ** 3)
    occ.scatter_(1, voxel_ids(pts), 1.0)
    return pts, occ


def main():
    model = VoxelOccupancyNet().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(25):
        pts, occ = sample_batch()
        logits = model(pts.half())
        loss = F.binary_cross_entropy_with_logits(logits.float(), occ)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0 or step == 24:
            acc = ((logits.float() > 0).float() == occ).float().mean()
            print(f"step {step:2d} bce {loss.item():.4f} voxel acc {acc.item():.3f}")


if __name__ == "__main__":
    main()
