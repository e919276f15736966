import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(12)

N_ID, IN_DIM, EMB = 30, 64, 32


class ArcMarginHead(nn.Module):
    def __init__(self, emb_dim, n_classes, s=30.0, m=0.5):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_classes, emb_dim) * 0.01)
        self.s, self.m = s, m
        self.th = math.cos(math.pi - m)
        self.mm = math.sin(math.pi - m) * m

    def forward(self, emb, labels):
        cos = F.linear(F.normalize(emb), F.normalize(self.weight)).float()
        eps = torch.finfo(cos.dtype).eps
        cos = cos.clamp(-1 + eps, 1 - eps)
        sin = torch.sqrt(1.0 - cos * cos)
        phi = cos * math.cos(self.m) - sin * math.sin(self.m)
        phi = torch.where(cos > self.th, phi, cos - self.mm)
        onehot = F.one_hot(labels, cos.size(1)).to(cos.dtype)
        return self.s * (onehot * phi + (1 - onehot) * cos)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(IN_DIM, 256), nn.BatchNorm1d(256), nn.PReLU(),
                                 nn.Linear(256, 256), nn.BatchNorm1d(256), nn.PReLU(),
                                 nn.Linear(256, EMB), nn.BatchNorm1d(EMB))

    def forward(self, x):
        return self.net(x)


def make_faces(n_per, protos):
    ids = torch.arange(N_ID).repeat_interleave(n_per)
    return protos[ids] + 0.9 * torch.randn(len(ids), IN_DIM), ids


def main():
    protos = torch.randn(N_ID, IN_DIM)
    x, y = make_faces(40, protos)
    xv, yv = make_faces(10, protos)
    backbone, head = Backbone(), ArcMarginHead(EMB, N_ID)
    opt = torch.optim.SGD(list(backbone.parameters()) + list(head.parameters()), lr=0.05,
                          momentum=0.9, weight_decay=5e-4)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=12)
    for epoch in range(12):
        backbone.train()
        total = 0.0
        for idx in torch.randperm(len(x)).split(100):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                emb = backbone(x[idx])
                logits = head(emb, y[idx])
            loss = F.cross_entropy(logits.float(), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        sched.step()
        if epoch % 3 == 0 or epoch == 11:
            print(f"epoch {epoch} arcface loss {total / len(x):.4f}")
    backbone.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        gallery = F.normalize(backbone(x).float())
        probe = F.normalize(backbone(xv).float())
    pred = y[(probe @ gallery.t()).argmax(1)]
    print(f"identification acc {(pred == yv).float().mean().item():.3f}")


if __name__ == "__main__":
    main()
