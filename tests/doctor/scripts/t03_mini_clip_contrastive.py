"""Mini CLIP-style contrastive training, model run in float16 to save memory.

The InfoNCE loss is written by hand with exp() / sum() (no log_softmax).
"""
import argparse
import torch
import torch.nn as nn

torch.manual_seed(0)


class Tower(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d_in, 128), nn.GELU(), nn.Linear(128, d_out))

    def forward(self, x):
        return self.net(x)


class MiniCLIP(nn.Module):
    def __init__(self, d_img=96, d_txt=48, d=64, temperature=0.07):
        super().__init__()
        self.image_tower = Tower(d_img, d)
        self.text_tower = Tower(d_txt, d)
        self.temperature = temperature

    def forward(self, img, txt):
        zi = self.image_tower(img)
        zt = self.text_tower(txt)
        # scale features (cheaper than full normalisation, "works the same")
        zi = zi / zi.shape[-1] ** 0.25
        zt = zt / zt.shape[-1] ** 0.25
        sim = zi @ zt.t() / self.temperature
        return sim


def info_nce(sim):
    e = torch.exp(sim)
    pos = torch.diagonal(e)
    return -(torch.log(pos / e.sum(dim=1))).mean()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--bs", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    args = ap.parse_args()

    model = MiniCLIP().half()
    opt = torch.optim.SGD(model.parameters(), lr=args.lr)
    for step in range(args.steps):
        img = torch.randn(args.bs, 96, dtype=torch.float16) * 3
        txt = torch.randn(args.bs, 48, dtype=torch.float16) * 3
        sim = model(img, txt)
        loss = info_nce(sim)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} loss {loss.item():.4f} max_sim {sim.max().item():.1f}")


if __name__ == "__main__":
    main()
