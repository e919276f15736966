import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ORIG_SIZE = 640
INPUT_SIZE = 64


def render_scenes(n):
    imgs = torch.zeros(n, 3, INPUT_SIZE, INPUT_SIZE)
    boxes = torch.zeros(n, 4)
    for i in range(n):
        w, h = torch.randint(150, 500, (2,)).tolist()
        x1 = torch.randint(0, ORIG_SIZE - w, (1,)).item()
        y1 = torch.randint(0, ORIG_SIZE - h, (1,)).item()
        boxes[i] = torch.tensor([x1, y1, x1 + w, y1 + h], dtype=torch.float32)
        s = INPUT_SIZE / ORIG_SIZE
        a, b, c, d = int(x1 * s), int(y1 * s), int((x1 + w) * s), int((y1 + h) * s)
        imgs[i, :, b:d, a:c] = torch.rand(3, 1, 1)
    imgs += 0.1 * torch.randn_like(imgs)
    return imgs, boxes


def generalized_box_iou_loss(pred, target, eps=1e-6):
    px1, py1, px2, py2 = pred.unbind(-1)
    tx1, ty1, tx2, ty2 = target.unbind(-1)
    area_p = (px2 - px1) * (py2 - py1)
    area_t = (tx2 - tx1) * (ty2 - ty1)
    ix1, iy1 = torch.max(px1, tx1), torch.max(py1, ty1)
    ix2, iy2 = torch.min(px2, tx2), torch.min(py2, ty2)
    inter = (ix2 - ix1).clamp(min=0) * (iy2 - iy1).clamp(min=0)
    union = area_p + area_t - inter
    iou = inter / (union + eps)
    cx1, cy1 = torch.min(px1, tx1), torch.min(py1, ty1)
    cx2, cy2 = torch.max(px2, tx2), torch.max(py2, ty2)
    enclose = (cx2 - cx1) * (cy2 - cy1)
    giou = iou - (enclose - union) / (enclose + eps)
    return (1 - giou).mean()


class BoxRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.ReLU(),
            nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.box_head = nn.Linear(64, 4)

    def forward(self, x):
        raw = self.box_head(self.backbone(x))
        cx, cy = torch.sigmoid(raw[:, 0]), torch.sigmoid(raw[:, 1])
        w, h = torch.sigmoid(raw[:, 2]), torch.sigmoid(raw[:, 3])
        boxes = torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], dim=-1)
        return boxes * ORIG_SIZE


def main():
    dtype = torch.float16
    imgs, boxes = render_scenes(512)
    model = BoxRegressor().to(dtype)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    for epoch in range(3):
        perm = torch.randperm(imgs.shape[0])
        for i in range(0, imgs.shape[0], 64):
            idx = perm[i:i + 64]
            pred = model(imgs[idx].to(dtype))
            tgt = boxes[idx].to(dtype)
            loss = generalized_box_iou_loss(pred, tgt) + 0.01 * F.l1_loss(pred, tgt) / ORIG_SIZE
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    with torch.no_grad():
        pred = model(imgs[:64].to(dtype))
        print("eval giou loss", generalized_box_iou_loss(pred, boxes[:64].to(dtype)).item())


if __name__ == "__main__":
    main()
