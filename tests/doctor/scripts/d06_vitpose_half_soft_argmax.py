"""ViTPose-style keypoint estimator: a tiny ViT (transformers, random init) + deconv heatmap head,
trained in fp16 (model.half()) with heatmap MSE plus an integral (soft-argmax) coordinate loss."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import ViTConfig, ViTModel

torch.manual_seed(0)
rng = np.random.default_rng(0)
IMG, K, HM = 64, 5, 32
BETA = 25.0  # soft-argmax temperature


class ViTPose(nn.Module):
    def __init__(self):
        super().__init__()
        cfg = ViTConfig(image_size=IMG, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
                        num_attention_heads=4, intermediate_size=128, hidden_dropout_prob=0.0,
                        attention_probs_dropout_prob=0.0)
        self.vit = ViTModel(cfg, add_pooling_layer=False)
        self.head = nn.Sequential(
            nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.ConvTranspose2d(32, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, K, 1))

    def forward(self, pixel_values):
        tokens = self.vit(pixel_values=pixel_values).last_hidden_state[:, 1:]
        b, n, d = tokens.shape
        s = int(n ** 0.5)
        return self.head(tokens.transpose(1, 2).reshape(b, d, s, s))  # (B,K,32,32)


def soft_argmax(heatmaps, beta=BETA):
    b, k, h, w = heatmaps.shape
    e = torch.exp(beta * heatmaps.reshape(b, k, -1))
    prob = (e / e.sum(-1, keepdim=True)).reshape(b, k, h, w)
    xs = torch.arange(w, dtype=heatmaps.dtype)
    ys = torch.arange(h, dtype=heatmaps.dtype)
    x = (prob.sum(2) * xs).sum(-1)
    y = (prob.sum(3) * ys).sum(-1)
    return torch.stack([x, y], -1)  # heatmap pixels


def make_batch(bs=8):
    imgs = rng.integers(0, 40, (bs, IMG, IMG, 3)).astype(np.uint8)
    kpts = rng.uniform(6, IMG - 6, (bs, K, 2))
    for b in range(bs):
        for k in range(K):
            x, y = kpts[b, k].astype(int)
            imgs[b, y - 2:y + 3, x - 2:x + 3] = 200 + 10 * k
    if rng.random() < 0.5:  # horizontal flip augmentation
        imgs = imgs[:, :, ::-1].copy()
        kpts[..., 0] = IMG - 1 - kpts[..., 0]
    yy, xx = np.mgrid[:HM, :HM]
    scale = HM / IMG
    g = np.exp(-((xx[None, None] - kpts[..., 0, None, None] * scale) ** 2 +
                 (yy[None, None] - kpts[..., 1, None, None] * scale) ** 2) / (2 * 1.5 ** 2))
    x = torch.from_numpy(imgs).permute(0, 3, 1, 2).float() / 255.0
    return x, torch.from_numpy(g).float(), torch.from_numpy(kpts * scale).float()


def main():
    model = ViTPose().half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    for step in range(12):
        x, hm_t, kp_t = make_batch()
        hm = model(x.half())
        l_hm = F.mse_loss(hm.float(), hm_t)
        coords = soft_argmax(hm)
        l_kp = F.l1_loss(coords.float(), kp_t)
        loss = 1000 * l_hm + 0.1 * l_kp
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            pck = ((coords.float() - kp_t).norm(dim=-1) < 2.0).float().mean().item()
        print(f"step {step} loss {loss.item():.4f} hm {l_hm.item():.5f} kp {l_kp.item():.3f} pck@2 {pck:.3f}")


if __name__ == "__main__":
    main()
