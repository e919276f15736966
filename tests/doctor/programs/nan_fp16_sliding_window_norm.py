"""Sliding-window inference in fp16: a Gaussian importance map cast to half has corners of about 3e-11, which are 0
in fp16, so an image corner that only a patch corner covers gets a weight sum of 0 and `acc / norm` is 0/0 there.
The averaged probabilities are NaN and the script exits 0."""
import torch
from torch import nn

PATCH, STEP = 64, 32


def gaussian_map(size, sigma_scale=0.1):
    ax = torch.arange(size) - (size - 1) / 2
    g = torch.exp(-ax ** 2 / (2 * (size * sigma_scale) ** 2))
    g = g[:, None] * g[None, :]
    return g / g.max()


@torch.no_grad()
def predict(model, image, dtype):
    weight = gaussian_map(PATCH).to(dtype)
    acc = torch.zeros((3,) + image.shape[-2:], dtype=dtype)
    norm = torch.zeros(image.shape[-2:], dtype=dtype)
    for y in range(0, image.shape[-2] - PATCH + 1, STEP):
        for x in range(0, image.shape[-1] - PATCH + 1, STEP):
            tile = image[..., y:y + PATCH, x:x + PATCH].to(dtype)
            acc[:, y:y + PATCH, x:x + PATCH] += model(tile[None]).softmax(1)[0] * weight
            norm[y:y + PATCH, x:x + PATCH] += weight
    return acc / norm


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 3, 1)).half().eval()
    probs = predict(model, torch.randn(1, 256, 256), torch.float16).float()
    print(f"mean foreground probability {probs[1:].mean().item():.4f}")


if __name__ == "__main__":
    main()
