import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
IMG, STRIDE = 64, 4
GRID = IMG // STRIDE


def render(n):
    imgs = 0.1 * torch.randn(n, 3, IMG, IMG)
    heat = torch.zeros(n, 1, GRID, GRID)
    sizes = torch.zeros(n, 2, GRID, GRID)
    boxes = []
    for i in range(n):
        w, h = torch.randint(10, 28, (2,)).tolist()
        x1, y1 = torch.randint(0, IMG - w, (1,)).item(), torch.randint(0, IMG - h, (1,)).item()
        imgs[i, :, y1:y1 + h, x1:x1 + w] += torch.rand(3, 1, 1) + 0.5
        cx, cy = (x1 + w / 2) / STRIDE, (y1 + h / 2) / STRIDE
        gx, gy = min(int(cx), GRID - 1), min(int(cy), GRID - 1)
        yy, xx = torch.meshgrid(torch.arange(GRID), torch.arange(GRID), indexing="ij")
        heat[i, 0] = torch.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / 2.0)
        sizes[i, :, gy, gx] = torch.tensor([w / IMG, h / IMG])
        boxes.append([x1, y1, x1 + w, y1 + h])
    return imgs, heat, sizes, torch.tensor(boxes, dtype=torch.float32)


class TinyCenterNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU())
        self.c2 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU())
        self.c3 = nn.Sequential(nn.Conv2d(64, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU())
        self.lateral = nn.Conv2d(64, 64, 1)
        self.heat_head = nn.Conv2d(64, 1, 3, padding=1)
        self.size_head = nn.Conv2d(64, 2, 3, padding=1)
        nn.init.constant_(self.heat_head.bias, -2.19)

    def forward(self, x):
        f2 = self.c2(self.c1(x))
        f3 = self.c3(f2)
        f = self.lateral(f2) + F.interpolate(f3, size=f2.shape[-2:], mode="nearest")
        return self.heat_head(f), self.size_head(f)


def focal_loss(logits, target, alpha=2.0, beta=4.0):
    logits = logits.float()
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    pos_loss = -torch.log(p) * (1 - p) ** alpha * pos
    neg_loss = -torch.log(1 - p) * p ** alpha * (1 - target) ** beta * (1 - pos)
    return (pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1.0)


def decode(heat_logits, size_pred):
    b = heat_logits.shape[0]
    flat = heat_logits.float().view(b, -1).argmax(-1)
    gy, gx = flat // GRID, flat % GRID
    wh = size_pred.float()[torch.arange(b), :, gy, gx] * IMG
    cx, cy = (gx.float() + 0.5) * STRIDE, (gy.float() + 0.5) * STRIDE
    return torch.stack([cx - wh[:, 0] / 2, cy - wh[:, 1] / 2, cx + wh[:, 0] / 2, cy + wh[:, 1] / 2], -1)


def box_iou(a, b):
    inter = (torch.min(a[:, 2:], b[:, 2:]) - torch.max(a[:, :2], b[:, :2])).clamp(min=0).prod(-1)
    area = lambda t: (t[:, 2:] - t[:, :2]).prod(-1)
    return inter / (area(a) + area(b) - inter + torch.finfo(a.dtype).eps)


def main():
    imgs, heat, sizes, boxes = render(384)
    model = TinyCenterNet()
    ema = {k: v.detach().clone() for k, v in model.state_dict().items()}
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    for epoch in range(4):
        perm = torch.randperm(imgs.shape[0])
        for i in range(0, imgs.shape[0], 32):
            idx = perm[i:i + 32]
            with torch.autocast("cpu", dtype=torch.bfloat16):
                hl, sz = model(imgs[idx])
            mask = heat[idx].eq(1).float()
            size_loss = (F.l1_loss(sz.float(), sizes[idx], reduction="none") * mask).sum() / mask.sum()
            loss = focal_loss(hl, heat[idx]) + 5.0 * size_loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            sched.step()
            with torch.no_grad():
                for k, v in model.state_dict().items():
                    if v.dtype.is_floating_point:
                        ema[k].lerp_(v, 0.05)
                    else:
                        ema[k].copy_(v)
        print(f"epoch {epoch} loss {loss.item():.4f}")
    model.load_state_dict(ema)
    model.eval()
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        hl, sz = model(imgs[:128])
    iou = box_iou(decode(hl, sz), boxes[:128])
    print(f"EMA model mean IoU {iou.mean().item():.3f}")


if __name__ == "__main__":
    main()
