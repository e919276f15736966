import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Block(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.heads = heads

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, n, 3, self.heads, -1).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, n, d)
        x = x + self.proj(a)
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class ViT(nn.Module):
    def __init__(self, img_size=32, patch=4, dim=64, depth=2, num_classes=10):
        super().__init__()
        self.patch_embed = nn.Conv2d(3, dim, patch, patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(0.02 * torch.randn(1, (img_size // patch) ** 2 + 1, dim))
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(len(x), -1, -1), x], 1) + self.pos_embed
        return self.head(self.norm(self.blocks(x))[:, 0])


def resize_pos_embed(posemb, new_tokens):
    cls_pe, grid_pe = posemb[:, :1], posemb[:, 1:]
    old = int(math.sqrt(grid_pe.shape[1]))
    new = int(math.sqrt(new_tokens - 1))
    grid_pe = grid_pe.reshape(1, old, old, -1).permute(0, 3, 1, 2)
    grid_pe = F.interpolate(grid_pe, size=(new, new), mode="bicubic", align_corners=False)
    return torch.cat([cls_pe, grid_pe.permute(0, 2, 3, 1).reshape(1, new * new, -1)], 1)


def pretrain(path):
    model = ViT(img_size=32, num_classes=10)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(3):
        loss = F.cross_entropy(model(torch.randn(16, 3, 32, 32)), torch.randint(0, 10, (16,)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"pretrain step {step} loss {loss.item():.4f}")
    torch.save(model.state_dict(), path)


def main():
    with tempfile.TemporaryDirectory() as d:
        ckpt_path = os.path.join(d, "vit_32px.pt")
        pretrain(ckpt_path)

        with torch.device("meta"):
            model = ViT(img_size=48, num_classes=5)
        state = torch.load(ckpt_path, map_location="cpu")
        target = model.state_dict()
        state["pos_embed"] = resize_pos_embed(state["pos_embed"], target["pos_embed"].shape[1])
        state = {k: v for k, v in state.items() if v.shape == target[k].shape}
        result = model.load_state_dict(state, strict=False, assign=True)
        print("missing keys:", result.missing_keys)
        nn.init.trunc_normal_(model.head.weight, std=0.02)
        nn.init.zeros_(model.head.bias)

    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.05)
    for step in range(5):
        x = torch.randn(16, 3, 48, 48)
        y = torch.randint(0, 5, (16,))
        loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"finetune step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
