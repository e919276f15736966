import os
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset
from transformers import DPTConfig, DPTForDepthEstimation

torch.manual_seed(0)


class RGBDScenes(Dataset):
    def __init__(self, n=12, size=32):
        rng = np.random.default_rng(0)
        self.samples = []
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
        for i in range(n):
            plane = 1.5 + 1.0 * yy + 0.3 * rng.random()
            cx, cy = rng.uniform(0.3, 0.7, 2)
            box = (np.abs(xx - cx) < 0.15) & (np.abs(yy - cy) < 0.15)
            depth_m = np.where(box, plane - 0.6, plane)
            depth_png = (depth_m * 1000.0).astype(np.uint16)
            rgb = np.stack([box * 0.8 + 0.1, yy, 1 - yy], 0).astype(np.float32)
            rgb += 0.03 * rng.standard_normal(rgb.shape).astype(np.float32)
            self.samples.append((rgb, depth_png))

    def __len__(self):
        return len(self.samples)

    def __getitem__(self, i):
        rgb, depth_png = self.samples[i]
        depth = torch.from_numpy(depth_png.astype(np.float32) / 1000.0)
        return {"pixel_values": torch.from_numpy(rgb), "depth": depth}


def build_model():
    cfg = DPTConfig(image_size=32, patch_size=8, num_channels=3, hidden_size=64, num_hidden_layers=4,
                    num_attention_heads=4, intermediate_size=128, backbone_out_indices=[0, 1, 2, 3],
                    neck_hidden_sizes=[16, 32, 64, 64], fusion_hidden_size=32, head_in_index=-1)
    return DPTForDepthEstimation(cfg)


def silog_loss(pred, target, lam=0.85):
    d = torch.log(pred.clamp(min=1e-3)) - torch.log(target)
    return torch.sqrt((d ** 2).mean() - lam * d.mean() ** 2)


def main():
    model = build_model().to(torch.bfloat16)
    loader = DataLoader(RGBDScenes(), batch_size=4, shuffle=True)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(2):
        for batch in loader:
            out = model(pixel_values=batch["pixel_values"].to(torch.bfloat16))
            pred = F.interpolate(out.predicted_depth[:, None], size=batch["depth"].shape[-2:], mode="bilinear")[:, 0]
            loss = silog_loss(pred.float(), batch["depth"])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} silog {loss.item():.4f}")

    out_dir = tempfile.mkdtemp(prefix="dpt_depth_")
    model.eval()
    with torch.no_grad():
        for i, batch in enumerate(DataLoader(RGBDScenes(n=4), batch_size=2)):
            out = model(pixel_values=batch["pixel_values"].to(torch.bfloat16))
            pred = F.interpolate(out.predicted_depth[:, None], size=(32, 32), mode="bilinear")[:, 0]
            depth_mm = (pred * 1000.0).clamp(0, 65535).cpu().numpy().astype(np.uint16)
            for j, d in enumerate(depth_mm):
                np.save(os.path.join(out_dir, f"depth_{i * 2 + j:03d}.npy"), d)
    print("exported", len(os.listdir(out_dir)), "depth maps to", out_dir)


if __name__ == "__main__":
    main()
