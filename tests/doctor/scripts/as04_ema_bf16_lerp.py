import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class PatchEmbed(nn.Module):
    def __init__(self, patch=4, dim=64):
        super().__init__()
        self.proj = nn.Conv2d(3, dim, patch, stride=patch)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class Block(nn.Module):
    def __init__(self, dim, heads=4):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class TinyViT(nn.Module):
    def __init__(self, img=32, patch=4, dim=64, depth=2, num_classes=10):
        super().__init__()
        self.patch_embed = PatchEmbed(patch, dim)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(0.02 * torch.randn(1, (img // patch) ** 2 + 1, dim))
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.patch_embed(x)
        x = torch.cat([self.cls_token.expand(x.size(0), -1, -1), x], dim=1) + self.pos_embed
        x = self.norm(self.blocks(x))
        return self.head(x[:, 0])


class ModelEma:
    def __init__(self, model, decay=0.999):
        self.module = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.module.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        ema_params = list(self.module.parameters())
        model_params = [p.detach() for p in model.parameters()]
        torch._foreach_lerp_(ema_params, model_params, 1.0 - self.decay)


def main():
    model = TinyViT()
    ema = ModelEma(model, decay=0.99)
    model = model.to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)

    x_all = torch.randn(128, 3, 32, 32)
    y_all = torch.randint(0, 10, (128,))
    for epoch in range(2):
        for i in range(0, 128, 32):
            x = x_all[i:i + 32].to(torch.bfloat16)
            y = y_all[i:i + 32]
            logits = model(x)
            loss = F.cross_entropy(logits.float(), y, label_smoothing=0.1)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            ema.update(model)
        print(f"epoch {epoch} loss {loss.item():.4f}")

    with torch.no_grad():
        val = F.cross_entropy(ema.module(x_all[:32]), y_all[:32])
    print(f"ema val loss {val.item():.4f}")


if __name__ == "__main__":
    main()
