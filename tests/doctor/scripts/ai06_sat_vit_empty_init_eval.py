import os
import tempfile
import numpy as np
import torch
from accelerate import init_empty_weights
from transformers import ViTConfig, ViTForImageClassification, ViTModel

torch.manual_seed(6)
rng = np.random.default_rng(6)
BANDS = ["B02", "B03", "B04", "B08"]
CLASSES = ["water", "forest", "cropland", "urban", "bare"]


def synth_tiles(n=16, size=32):
    tiles = np.zeros((n, len(BANDS), size, size), dtype=np.uint16)
    labels = rng.integers(0, len(CLASSES), n)
    base = {0: (900, 700, 500, 300), 1: (400, 700, 500, 3500), 2: (600, 900, 900, 2800),
            3: (1400, 1400, 1500, 1800), 4: (1800, 1900, 2100, 2400)}
    for i, c in enumerate(labels):
        for b, mu in enumerate(base[int(c)]):
            tiles[i, b] = np.clip(rng.normal(mu, mu * 0.15, (size, size)), 0, 10000)
    return tiles, labels


def band_stats(tiles):
    t = tiles.astype(np.float64)
    return t.mean(axis=(0, 2, 3)), t.std(axis=(0, 2, 3))


def normalise(tiles, mean, std):
    x = (tiles.astype(np.float32) - mean[None, :, None, None]) / std[None, :, None, None]
    return torch.from_numpy(x.astype(np.float32))


def make_backbone_checkpoint(cfg, path):
    backbone = ViTModel(cfg, add_pooling_layer=False)
    sd = {f"vit.{k}": v for k, v in backbone.state_dict().items()}
    torch.save(sd, path)


def main():
    cfg = ViTConfig(image_size=32, patch_size=8, num_channels=len(BANDS), hidden_size=64, num_hidden_layers=2,
                    num_attention_heads=4, intermediate_size=128, num_labels=len(CLASSES))
    with tempfile.TemporaryDirectory() as d:
        ckpt = os.path.join(d, "ssl4eo_vit_tiny.pt")
        make_backbone_checkpoint(cfg, ckpt)

        with init_empty_weights():
            model = ViTForImageClassification(cfg)
        state = torch.load(ckpt, map_location="cpu")
        result = model.load_state_dict(state, strict=False, assign=True)
        print(f"loaded {len(state)} tensors, {len(result.missing_keys)} missing")
        model.eval()

        tiles, labels = synth_tiles()
        mean, std = band_stats(tiles)
        x = normalise(tiles, mean, std)
        y = torch.from_numpy(labels)
        correct, total_loss = 0, 0.0
        with torch.no_grad():
            for i in range(0, len(x), 4):
                out = model(pixel_values=x[i:i + 4], labels=y[i:i + 4])
                total_loss += out.loss.item() * len(y[i:i + 4])
                correct += (out.logits.argmax(-1) == y[i:i + 4]).sum().item()
        print(f"linear-probe baseline: loss {total_loss / len(x):.4f} acc {correct / len(x):.3f}")

        ndvi = (x[:, 3] - x[:, 2]).mean().item()
        print(f"mean normalised NIR-red contrast {ndvi:.3f}")


if __name__ == "__main__":
    main()
