import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

NUM_CLASSES, FEAT_DIM, T = 6, 64, 256
PROTOTYPES = torch.randn(NUM_CLASSES, FEAT_DIM) * 0.5


def make_videos(bs):
    """Frame-wise features of procedural videos: a sequence of actions, each a few dozen frames long."""
    feats = torch.randn(bs, FEAT_DIM, T) * 0.3
    labels = torch.zeros(bs, T, dtype=torch.long)
    for b in range(bs):
        t = 0
        while t < T:
            c = int(torch.randint(0, NUM_CLASSES, ()))
            d = int(torch.randint(20, 60, ()))
            feats[b, :, t:t + d] += PROTOTYPES[c][:, None]
            labels[b, t:t + d] = c
            t += d
    return feats, labels


class DilatedResidual(nn.Module):
    def __init__(self, dilation, ch):
        super().__init__()
        self.conv_dilated = nn.Conv1d(ch, ch, 3, padding=dilation, dilation=dilation)
        self.conv_1x1 = nn.Conv1d(ch, ch, 1)
        self.dropout = nn.Dropout(0.2)

    def forward(self, x):
        return x + self.dropout(self.conv_1x1(F.relu(self.conv_dilated(x))))


class SingleStage(nn.Module):
    def __init__(self, layers, ch, dim_in, num_classes):
        super().__init__()
        self.conv_in = nn.Conv1d(dim_in, ch, 1)
        self.layers = nn.ModuleList([DilatedResidual(2 ** i, ch) for i in range(layers)])
        self.conv_out = nn.Conv1d(ch, num_classes, 1)

    def forward(self, x):
        x = self.conv_in(x)
        for layer in self.layers:
            x = layer(x)
        return self.conv_out(x)


class MSTCN(nn.Module):
    def __init__(self, stages=3, layers=6, ch=32):
        super().__init__()
        self.stage1 = SingleStage(layers, ch, FEAT_DIM, NUM_CLASSES)
        self.stages = nn.ModuleList([SingleStage(layers, ch, NUM_CLASSES, NUM_CLASSES) for _ in range(stages - 1)])

    def forward(self, x):
        out = self.stage1(x)
        outputs = [out]
        for s in self.stages:
            out = s(F.softmax(out, dim=1))
            outputs.append(out)
        return outputs


def segmentation_loss(outputs, labels, lam=0.15):
    total = 0.0
    for out in outputs:
        out = out.float()
        total = total + F.cross_entropy(out, labels)
        logp = F.log_softmax(out, dim=1)
        smooth = F.mse_loss(logp[:, :, 1:], logp.detach()[:, :, :-1], reduction="none")
        total = total + lam * smooth.clamp(max=16).mean()
    return total


def main():
    model = MSTCN().half()
    opt = torch.optim.Adam(model.parameters(), lr=5e-4)
    for step in range(25):
        model.train()
        feats, labels = make_videos(4)
        outputs = model(feats.half())
        loss = segmentation_loss(outputs, labels)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            acc = (outputs[-1].argmax(1) == labels).float().mean().item()
            print(f"step {step:2d} loss {loss.item():.4f} frame acc {acc:.3f}")

    model.eval()
    with torch.no_grad():
        feats, labels = make_videos(4)
        pred = model(feats.half())[-1].argmax(1)
        print(f"eval loss {segmentation_loss(model(feats.half()), labels).item():.4f} "
              f"frame acc {(pred == labels).float().mean().item():.3f}")


if __name__ == "__main__":
    main()
