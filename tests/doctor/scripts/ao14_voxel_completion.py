import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
RES = 12
LOSS_SCALE = 2.0 ** 16


class ConvBlock(nn.Module):
    def __init__(self, cin, cout, stride=1):
        super().__init__()
        self.conv = nn.Conv3d(cin, cout, 3, stride=stride, padding=1)
        self.norm = nn.GroupNorm(4, cout)

    def forward(self, x):
        return F.relu(self.norm(self.conv(x)))


class CompletionNet(nn.Module):
    def __init__(self, ch=8):
        super().__init__()
        self.enc1 = ConvBlock(1, ch)
        self.enc2 = ConvBlock(ch, 2 * ch, stride=2)
        self.mid = ConvBlock(2 * ch, 2 * ch)
        self.up = nn.ConvTranspose3d(2 * ch, ch, 2, stride=2)
        self.dec = ConvBlock(2 * ch, ch)
        self.occ_out = nn.Conv3d(ch, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        m = self.mid(self.enc2(e1))
        d = self.dec(torch.cat([self.up(m), e1], 1))
        return self.occ_out(d)


def make_scene(B=2):
    r = torch.arange(RES).float()
    zz, yy, xx = torch.meshgrid(r, r, r, indexing="ij")
    full, partial = [], []
    for _ in range(B):
        c = torch.randint(4, 8, (3,)).float()
        rad = 2.0 + 2.0 * torch.rand(1)
        shape = (((xx - c[0]) ** 2 + (yy - c[1]) ** 2 + (zz - c[2]) ** 2) < rad ** 2).float()
        front = torch.cumsum(shape, dim=0)
        visible = shape * (front <= 1.5).float()
        full.append(shape)
        partial.append(visible)
    return torch.stack(partial)[:, None], torch.stack(full)[:, None]


def dice_loss(logits, target, eps=1.0):
    p = torch.sigmoid(logits)
    inter = (p * target).sum()
    return 1 - (2 * inter + eps) / (p.sum() + target.sum() + eps)


def main():
    model = CompletionNet().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(8):
        partial, full = make_scene()
        logits = model(partial.half())
        target = full.half()
        loss = F.binary_cross_entropy_with_logits(logits, target) + dice_loss(logits, target)
        opt.zero_grad()
        (loss * LOSS_SCALE).backward()
        for p in model.parameters():
            p.grad.div_(LOSS_SCALE)
        opt.step()
        iou = ((logits > 0) & (target > 0.5)).sum() / ((logits > 0) | (target > 0.5)).sum().clamp(min=1)
        print(f"step {step:2d} loss {loss.item():.4f} iou {iou.item():.3f}")


if __name__ == "__main__":
    main()
