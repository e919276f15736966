import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LayerNorm2d(nn.Module):
    def __init__(self, dim, eps=1e-8):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def forward(self, x):
        mu = x.mean(1, keepdim=True)
        var = (x - mu).pow(2).mean(1, keepdim=True)
        x = (x - mu) * torch.rsqrt(var + self.eps)
        return x * self.weight[:, None, None] + self.bias[:, None, None]


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = LayerNorm2d(dim)
        self.pw1 = nn.Conv2d(dim, 4 * dim, 1)
        self.pw2 = nn.Conv2d(4 * dim, dim, 1)
        self.gamma = nn.Parameter(1e-2 * torch.ones(dim, 1, 1))

    def forward(self, x):
        y = self.pw2(F.gelu(self.pw1(self.norm(self.dwconv(x)))))
        return x + self.gamma * y


class TinyConvNeXt(nn.Module):
    def __init__(self, num_classes=10, dims=(32, 64)):
        super().__init__()
        self.stem = nn.Conv2d(3, dims[0], 4, stride=4, bias=False)
        self.stem_norm = LayerNorm2d(dims[0])
        self.stage1 = nn.Sequential(ConvNeXtBlock(dims[0]), ConvNeXtBlock(dims[0]))
        self.down = nn.Sequential(LayerNorm2d(dims[0]), nn.Conv2d(dims[0], dims[1], 2, stride=2))
        self.stage2 = nn.Sequential(ConvNeXtBlock(dims[1]))
        self.head_norm = nn.LayerNorm(dims[1])
        self.head = nn.Linear(dims[1], num_classes)

    def forward(self, x):
        x = self.stage1(self.stem_norm(self.stem(x)))
        x = self.stage2(self.down(x))
        return self.head(self.head_norm(x.mean((2, 3))))


def letterbox(img, size=64):
    c, h, w = img.shape
    scale = size / max(h, w)
    nh, nw = int(round(h * scale)), int(round(w * scale))
    img = F.interpolate(img[None], size=(nh, nw), mode="bilinear", align_corners=False)[0]
    out = torch.zeros(c, size, size)
    top, left = (size - nh) // 2, (size - nw) // 2
    out[:, top:top + nh, left:left + nw] = img
    return out


def make_eval_set(n=48, num_classes=10):
    imgs, labels = [], []
    for i in range(n):
        h, w = (40, 64) if i % 2 == 0 else (64, 36)
        img = torch.rand(3, h, w)
        mean = torch.tensor([0.5, 0.5, 0.5])[:, None, None]
        imgs.append(letterbox((img - mean) / 0.25))
        labels.append(i % num_classes)
    return torch.stack(imgs), torch.tensor(labels)


def main():
    model = TinyConvNeXt()
    x_train = torch.randn(64, 3, 64, 64)
    y_train = torch.randint(0, 10, (64,))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for step in range(4):
        loss = F.cross_entropy(model(x_train), y_train)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"train step {step} loss {loss.item():.4f}")

    model = model.half().eval()
    x_eval, y_eval = make_eval_set()
    total_loss, correct = 0.0, 0
    with torch.no_grad():
        for i in range(0, len(x_eval), 16):
            xb = x_eval[i:i + 16].half()
            logits = model(xb).float()
            total_loss += F.cross_entropy(logits, y_eval[i:i + 16], reduction="sum").item()
            correct += (logits.argmax(1) == y_eval[i:i + 16]).sum().item()
    print(f"eval loss {total_loss / len(x_eval):.4f} acc {correct / len(x_eval):.3f}")


if __name__ == "__main__":
    main()
