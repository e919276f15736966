import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

NUM_CLASSES, FEAT_DIM, SEQ_LEN = 8, 256, 96


def make_video_features(bs):
    """Snippet features for untrimmed videos with up to three labelled action instances."""
    feats = torch.randn(bs, FEAT_DIM, SEQ_LEN) * 0.5
    cls_t = torch.zeros(bs, NUM_CLASSES, SEQ_LEN)
    reg_t = torch.zeros(bs, 2, SEQ_LEN)
    for b in range(bs):
        for _ in range(int(torch.randint(1, 4, ()))):
            c = int(torch.randint(0, NUM_CLASSES, ()))
            s = int(torch.randint(0, SEQ_LEN - 20, ()))
            e = s + int(torch.randint(5, 20, ()))
            feats[b, c * 32:(c + 1) * 32, s:e] += 1.0
            cls_t[b, c, s:e] = 1.0
            t = torch.arange(s, e).float()
            reg_t[b, 0, s:e], reg_t[b, 1, s:e] = (t - s) / 8, (e - t) / 8
    return feats, cls_t, reg_t


class TemporalBlock(nn.Module):
    def __init__(self, dim, dilation):
        super().__init__()
        self.conv = nn.Conv1d(dim, dim, 3, padding=dilation, dilation=dilation)
        self.norm = nn.GroupNorm(8, dim)

    def forward(self, x):
        return x + F.relu(self.norm(self.conv(x)))


class ActionDetector(nn.Module):
    def __init__(self, dim=128, prior_prob=0.01):
        super().__init__()
        self.proj = nn.Conv1d(FEAT_DIM, dim, 1)
        self.blocks = nn.Sequential(*[TemporalBlock(dim, d) for d in (1, 2, 4)])
        self.cls_head = nn.Conv1d(dim, NUM_CLASSES, 3, padding=1)
        self.reg_head = nn.Conv1d(dim, 2, 3, padding=1)
        nn.init.constant_(self.cls_head.bias, -math.log((1 - prior_prob) / prior_prob))

    def forward(self, feats):
        x = self.blocks(self.proj(feats))
        return self.cls_head(x), F.relu(self.reg_head(x))


def detection_loss(cls_logits, reg, cls_t, reg_t):
    pos = cls_t.amax(1) > 0
    num_pos = max(int(pos.sum()), 1)
    cls_loss = F.binary_cross_entropy_with_logits(cls_logits.float(), cls_t, reduction="sum") / num_pos
    reg_loss = F.smooth_l1_loss(reg.float().permute(0, 2, 1)[pos], reg_t.permute(0, 2, 1)[pos])
    return cls_loss + reg_loss, cls_loss, reg_loss


def main():
    master = ActionDetector()
    model = copy.deepcopy(master).half()
    opt = torch.optim.AdamW(master.parameters(), lr=1e-3, weight_decay=0.05)
    loss_scale = 512.0
    for step in range(24):
        feats, cls_t, reg_t = make_video_features(8)
        cls_logits, reg = model(feats.half())
        loss, cls_loss, reg_loss = detection_loss(cls_logits, reg, cls_t, reg_t)
        model.zero_grad(set_to_none=True)
        (loss * loss_scale).backward()
        for p32, p16 in zip(master.parameters(), model.parameters()):
            p32.grad = p16.grad
        for p32 in master.parameters():
            p32.grad.div_(loss_scale)
        opt.step()
        with torch.no_grad():
            for p16, p32 in zip(model.parameters(), master.parameters()):
                p16.copy_(p32)
        if step % 5 == 0:
            print(f"step {step:2d} loss {loss.item():.4f} cls {cls_loss.item():.4f} reg {reg_loss.item():.4f}")

    with torch.no_grad():
        feats, cls_t, _ = make_video_features(4)
        scores = torch.sigmoid(model(feats.half())[0].float())
        tp = ((scores > 0.5) & (cls_t > 0)).sum().item()
        print(f"snippet recall {tp / max(cls_t.sum().item(), 1):.3f}")


if __name__ == "__main__":
    main()
