import math
import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
from accelerate import init_empty_weights
from transformers import ViTConfig, ViTModel

torch.manual_seed(0)


def vit_config():
    return ViTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=2,
                     num_attention_heads=4, intermediate_size=128)


class PoseRegressor(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.backbone = ViTModel(cfg, add_pooling_layer=False)
        self.pose_head = nn.Sequential(nn.Linear(cfg.hidden_size, 64), nn.GELU(), nn.Linear(64, 7))

    def forward(self, images):
        feats = self.backbone(pixel_values=images).last_hidden_state[:, 0]
        out = self.pose_head(feats)
        t, q = out[:, :3], out[:, 3:]
        return t, q / q.norm(dim=-1, keepdim=True).clamp_min(1e-6)


def render_views(n=12, size=32):
    rng = np.random.default_rng(0)
    imgs, poses = [], []
    yy, xx = np.mgrid[0:size, 0:size] / size
    for i in range(n):
        yaw = 2 * math.pi * i / n
        t = np.array([2.5 * math.cos(yaw), 0.3, 2.5 * math.sin(yaw)])
        q = np.array([math.cos(yaw / 2), 0.0, math.sin(yaw / 2), 0.0])
        cx, cy = 0.5 + 0.3 * math.sin(yaw), 0.5
        blob = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 0.02)
        img = np.stack([blob, 0.5 * blob, 1 - blob], 0) + 0.02 * rng.standard_normal((3, size, size))
        imgs.append(img.astype(np.float32))
        poses.append(np.concatenate([t, q]).astype(np.float32))
    return torch.from_numpy(np.stack(imgs)), torch.from_numpy(np.stack(poses))


def pose_errors(t_pred, q_pred, gt):
    t_err = (t_pred - gt[:, :3]).norm(dim=-1)
    dot = (q_pred * gt[:, 3:]).sum(-1).abs().clamp(max=1.0)
    return t_err.mean().item(), torch.rad2deg(2 * torch.acos(dot)).mean().item()


def main():
    cfg = vit_config()
    workdir = tempfile.mkdtemp(prefix="posevit_")
    ckpt = os.path.join(workdir, "scene_encoder.pt")
    pretrained = ViTModel(cfg, add_pooling_layer=False)
    torch.save({f"backbone.{k}": v for k, v in pretrained.state_dict().items()}, ckpt)
    print("saved encoder checkpoint with", len(pretrained.state_dict()), "tensors")

    with init_empty_weights():
        model = PoseRegressor(cfg)
    state = torch.load(ckpt, map_location="cpu")
    result = model.load_state_dict(state, strict=False, assign=True)
    print("missing:", result.missing_keys)
    model.eval()

    images, gt = render_views()
    with torch.no_grad():
        for start in range(0, len(images), 4):
            t_pred, q_pred = model(images[start:start + 4])
            terr, rerr = pose_errors(t_pred, q_pred, gt[start:start + 4])
            print(f"views {start}-{start + 3}: trans err {terr:.3f} rot err {rerr:.1f} deg")


if __name__ == "__main__":
    main()
