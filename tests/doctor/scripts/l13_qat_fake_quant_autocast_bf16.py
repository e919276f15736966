"""Quantization-aware fine-tuning (eager-mode torch.ao QAT) of a small 1-D CNN keyword
spotter. Float pre-training in fp32, then QAT fine-tuning under bf16 autocast to make
the fake-quant epochs cheaper, then int8 conversion."""
import time
import warnings

import torch
import torch.ao.quantization as tq
import torch.nn as nn
import torch.nn.functional as F

warnings.filterwarnings("ignore", category=DeprecationWarning)
torch.manual_seed(0)
N_MELS, T, N_WORDS = 20, 48, 5


def make_batch(n=64):
    y = torch.randint(0, N_WORDS, (n,))
    t = torch.linspace(0, 1, T)
    base = torch.stack([torch.sin(2 * torch.pi * (k + 1) * t) for k in range(N_WORDS)])  # (W, T)
    mel_w = torch.randn(N_WORDS, N_MELS, 1, generator=torch.Generator().manual_seed(3)).abs()
    x = mel_w[y] * base[y][:, None, :] + 0.4 * torch.randn(n, N_MELS, T)
    return x, y


class KWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.quant = tq.QuantStub()
        self.conv1 = nn.Conv1d(N_MELS, 32, 5, padding=2)
        self.bn1 = nn.BatchNorm1d(32)
        self.relu1 = nn.ReLU()
        self.conv2 = nn.Conv1d(32, 32, 5, padding=2)
        self.bn2 = nn.BatchNorm1d(32)
        self.relu2 = nn.ReLU()
        self.pool = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(32, N_WORDS)
        self.dequant = tq.DeQuantStub()

    def forward(self, x):
        x = self.quant(x)
        x = self.relu1(self.bn1(self.conv1(x)))
        x = self.relu2(self.bn2(self.conv2(x)))
        x = self.pool(x).flatten(1)
        return self.dequant(self.fc(x))


def evaluate(model):
    x, y = make_batch(512)
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def main():
    t0 = time.time()
    model = KWS()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(40):
        x, y = make_batch()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    model.eval()
    print(f"float model acc {evaluate(model):.3f}")

    # ---- QAT ----
    model.train()
    tq.fuse_modules_qat(model, [["conv1", "bn1", "relu1"], ["conv2", "bn2", "relu2"]], inplace=True)
    model.qconfig = tq.get_default_qat_qconfig("x86")
    tq.prepare_qat(model, inplace=True)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    for step in range(30):
        x, y = make_batch()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
        opt.zero_grad(); loss.backward(); opt.step()
        if step == 15:
            model.apply(torch.ao.nn.intrinsic.qat.freeze_bn_stats)
        if step % 10 == 0:
            print(f"qat step {step} loss {loss.item():.4f}")

    model.eval()
    qmodel = tq.convert(model, inplace=False)
    print(f"int8 model acc {evaluate(qmodel):.3f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
