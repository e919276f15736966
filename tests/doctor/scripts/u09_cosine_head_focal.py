"""Face-ID style embedding network with a normalized cosine classifier (scale s=64) and focal loss.
Whole model runs in half precision to fit bigger batches."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_IDS, D_IN, D_EMB = 100, 128, 64


class CosineHead(nn.Module):
    def __init__(self, d, n, s=64.0):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n, d) * 0.01)
        self.s = s

    def forward(self, emb):
        return self.s * F.linear(F.normalize(emb, dim=-1), F.normalize(self.weight, dim=-1))


class FocalLoss(nn.Module):
    def __init__(self, gamma=2.0):
        super().__init__()
        self.gamma = gamma

    def forward(self, logits, target):
        p = F.softmax(logits, dim=-1)
        pt = p.gather(1, target[:, None]).squeeze(1)
        return (-(1 - pt) ** self.gamma * torch.log(pt)).mean()


backbone = nn.Sequential(nn.Linear(D_IN, 256), nn.BatchNorm1d(256), nn.PReLU(), nn.Linear(256, D_EMB))
head = CosineHead(D_EMB, N_IDS)
model = nn.ModuleDict({"backbone": backbone, "head": head}).half()
criterion = FocalLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)

prototypes = torch.randn(N_IDS, D_IN)
for step in range(6):
    ids = torch.randint(0, N_IDS, (64,))
    x = (prototypes[ids] + 0.5 * torch.randn(64, D_IN)).half()
    logits = model["head"](model["backbone"](x))
    loss = criterion(logits, ids)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
