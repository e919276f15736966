import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

CONTEXT, HORIZON, SIZE = 4, 6, 24


def bouncing_digits(bs):
    """Two bright blobs bouncing inside the frame; returns (B, T, 1, H, W) in [0, 1]."""
    T = CONTEXT + HORIZON
    video = torch.zeros(bs, T, 1, SIZE, SIZE)
    pos = torch.rand(bs, 2, 2) * (SIZE - 6)
    vel = (torch.rand(bs, 2, 2) - 0.5) * 4
    for t in range(T):
        for k in range(2):
            for b in range(bs):
                y, x = pos[b, k].long().tolist()
                video[b, t, 0, y:y + 5, x:x + 5] = 1.0
        pos = pos + vel
        out = (pos < 0) | (pos > SIZE - 6)
        vel = torch.where(out, -vel, vel)
        pos = pos.clamp(0, SIZE - 6)
    return video


class ConvGRUCell(nn.Module):
    def __init__(self, cin, hidden):
        super().__init__()
        self.gates = nn.Conv2d(cin + hidden, hidden * 2, 3, padding=1)
        self.cand = nn.Conv2d(cin + hidden, hidden, 3, padding=1)

    def forward(self, x, h):
        z, r = torch.sigmoid(self.gates(torch.cat([x, h], 1))).chunk(2, 1)
        n = torch.tanh(self.cand(torch.cat([x, r * h], 1)))
        return (1 - z) * h + z * n


class FramePredictor(nn.Module):
    def __init__(self, hidden=24):
        super().__init__()
        self.hidden = hidden
        self.enc = nn.Sequential(nn.Conv2d(1, hidden, 3, stride=2, padding=1), nn.ReLU())
        self.cell = ConvGRUCell(hidden, hidden)
        self.dec = nn.Sequential(nn.ConvTranspose2d(hidden, hidden, 4, stride=2, padding=1), nn.ReLU(),
                                 nn.Conv2d(hidden, 1, 3, padding=1))

    def forward(self, context, horizon):
        b = context.shape[0]
        h = context.new_zeros(b, self.hidden, SIZE // 2, SIZE // 2)
        for t in range(context.shape[1]):
            h = self.cell(self.enc(context[:, t]), h)
        frame = context[:, -1]
        preds = []
        for _ in range(horizon):
            frame = torch.sigmoid(self.dec(h))
            preds.append(frame)
            h = self.cell(self.enc(frame), h)
        return torch.stack(preds, 1)


def main():
    model = FramePredictor().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.5, momentum=0.9)
    loss_scale = 2.0 ** 16
    for step in range(12):
        video = bouncing_digits(6).half()
        context, future = video[:, :CONTEXT], video[:, CONTEXT:]
        pred = model(context, HORIZON)
        per_frame = F.mse_loss(pred, future, reduction="none").mean(dim=(0, 2, 3, 4))
        loss = per_frame.sum()
        opt.zero_grad()
        (loss * loss_scale).backward()
        for p in model.parameters():
            p.grad.div_(loss_scale)
        opt.step()
        if step % 4 == 0:
            print(f"step {step:2d} loss {loss.item():.4f} last-frame mse {per_frame[-1].item():.4f}")

    with torch.no_grad():
        video = bouncing_digits(4).half()
        pred = model(video[:, :CONTEXT], HORIZON)
        mse = F.mse_loss(pred.float(), video[:, CONTEXT:].float())
        print(f"eval mse {mse.item():.5f}")


if __name__ == "__main__":
    main()
