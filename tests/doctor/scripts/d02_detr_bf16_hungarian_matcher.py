"""DETR-like set-prediction detector (tiny CNN backbone + transformer decoder) cast to bfloat16
to save memory, trained with Hungarian matching (hand-written assignment solver on a cost matrix)."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 4
NUM_QUERIES = 8


def linear_sum_assignment(cost):
    """Hungarian algorithm (rectangular, rows <= cols after transpose). Returns (row_ind, col_ind)."""
    cost = np.asarray(cost, dtype=np.float64)
    transposed = cost.shape[0] > cost.shape[1]
    if transposed:
        cost = cost.T
    n, m = cost.shape
    u, v = np.zeros(n + 1), np.zeros(m + 1)
    p, way = np.zeros(m + 1, dtype=int), np.zeros(m + 1, dtype=int)
    for i in range(1, n + 1):
        p[0] = i
        j0 = 0
        minv = np.full(m + 1, np.inf)
        used = np.zeros(m + 1, dtype=bool)
        while True:
            used[j0] = True
            i0 = p[j0]
            delta, j1 = np.inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    cur = cost[i0 - 1, j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(m + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while True:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
            if j0 == 0:
                break
    rows, cols = [], []
    for j in range(1, m + 1):
        if p[j]:
            rows.append(p[j] - 1)
            cols.append(j - 1)
    rows, cols = np.array(rows), np.array(cols)
    if transposed:
        rows, cols = cols, rows
    order = np.argsort(rows)
    return rows[order], cols[order]


def box_cxcywh_to_xyxy(b):
    cx, cy, w, h = b.unbind(-1)
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1)


def generalized_box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b[None] - inter
    iou = inter / union
    lt_c = torch.min(a[:, None, :2], b[None, :, :2])
    rb_c = torch.max(a[:, None, 2:], b[None, :, 2:])
    wh_c = (rb_c - lt_c).clamp(min=0)
    area_c = wh_c[..., 0] * wh_c[..., 1]
    return iou - (area_c - union) / area_c


class TinyDETR(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
            nn.Conv2d(64, d, 3, 2, 1), nn.ReLU())
        self.pos = nn.Parameter(torch.randn(1, 64, d) * 0.02)
        layer = nn.TransformerDecoderLayer(d, 4, 128, dropout=0.0, batch_first=True)
        self.decoder = nn.TransformerDecoder(layer, 2)
        self.query = nn.Embedding(NUM_QUERIES, d)
        self.class_embed = nn.Linear(d, NUM_CLASSES + 1)
        self.bbox_embed = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 4))

    def forward(self, x):
        f = self.backbone(x).flatten(2).transpose(1, 2) + self.pos
        q = self.query.weight.unsqueeze(0).expand(x.shape[0], -1, -1)
        h = self.decoder(q, f)
        return {"pred_logits": self.class_embed(h), "pred_boxes": self.bbox_embed(h).sigmoid()}


class HungarianMatcher(nn.Module):
    def __init__(self, cost_class=1.0, cost_bbox=5.0, cost_giou=2.0):
        super().__init__()
        self.cost_class, self.cost_bbox, self.cost_giou = cost_class, cost_bbox, cost_giou

    @torch.no_grad()
    def forward(self, outputs, targets):
        bs, nq = outputs["pred_logits"].shape[:2]
        out_prob = outputs["pred_logits"].flatten(0, 1).softmax(-1)
        out_bbox = outputs["pred_boxes"].flatten(0, 1)
        tgt_ids = torch.cat([t["labels"] for t in targets])
        tgt_bbox = torch.cat([t["boxes"] for t in targets]).to(out_bbox.dtype)
        cost_class = -out_prob[:, tgt_ids]
        cost_bbox = torch.cdist(out_bbox, tgt_bbox, p=1)
        cost_giou = -generalized_box_iou(box_cxcywh_to_xyxy(out_bbox), box_cxcywh_to_xyxy(tgt_bbox))
        C = self.cost_bbox * cost_bbox + self.cost_class * cost_class + self.cost_giou * cost_giou
        C = C.view(bs, nq, -1).float().cpu()
        sizes = [len(t["boxes"]) for t in targets]
        idx = [linear_sum_assignment(c[i].numpy()) for i, c in enumerate(C.split(sizes, -1))]
        return [(torch.as_tensor(i, dtype=torch.int64), torch.as_tensor(j, dtype=torch.int64)) for i, j in idx]


def make_batch(bs=4):
    imgs = torch.rand(bs, 3, 64, 64)
    targets = []
    for _ in range(bs):
        n = int(rng.integers(1, 4))
        cxcy = rng.uniform(0.25, 0.75, (n, 2))
        wh = rng.uniform(0.1, 0.4, (n, 2))
        targets.append({"boxes": torch.tensor(np.concatenate([cxcy, wh], 1), dtype=torch.float32),
                        "labels": torch.tensor(rng.integers(0, NUM_CLASSES, n))})
    return imgs, targets


def set_criterion(outputs, targets, indices):
    logits = outputs["pred_logits"]
    target_classes = torch.full(logits.shape[:2], NUM_CLASSES, dtype=torch.int64)
    for b, (src, tgt) in enumerate(indices):
        target_classes[b, src] = targets[b]["labels"][tgt]
    empty_weight = torch.ones(NUM_CLASSES + 1, dtype=logits.dtype)
    empty_weight[-1] = 0.1
    loss_ce = F.cross_entropy(logits.transpose(1, 2), target_classes, empty_weight)
    src_boxes = torch.cat([outputs["pred_boxes"][b, s] for b, (s, _) in enumerate(indices)])
    tgt_boxes = torch.cat([targets[b]["boxes"][t] for b, (_, t) in enumerate(indices)]).to(src_boxes.dtype)
    loss_bbox = F.l1_loss(src_boxes, tgt_boxes)
    loss_giou = (1 - torch.diag(generalized_box_iou(box_cxcywh_to_xyxy(src_boxes),
                                                     box_cxcywh_to_xyxy(tgt_boxes)))).mean()
    return loss_ce + 5 * loss_bbox + 2 * loss_giou


def main():
    model = TinyDETR().to(torch.bfloat16)
    matcher = HungarianMatcher()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)
    for step in range(10):
        imgs, targets = make_batch()
        outputs = model(imgs.to(torch.bfloat16))
        indices = matcher(outputs, targets)
        loss = set_criterion(outputs, targets, indices)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        opt.step()
        print(f"step {step} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
