import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, TXT_LEN = 200, 12
FRAMES, SIZE, PATCH = 4, 32, 8
DIM = 64


def make_pairs(n):
    """Each clip has a 'concept' (a colour blob at a position); captions repeat the concept tokens."""
    concept = torch.randint(0, 16, (n,))
    video = torch.randn(n, FRAMES, 3, SIZE, SIZE) * 0.2
    for i, c in enumerate(concept.tolist()):
        r, col = divmod(c, 4)
        video[i, :, c % 3, r * 8:(r + 1) * 8, col * 8:(col + 1) * 8] += 2.0
    text = torch.randint(20, VOCAB, (n, TXT_LEN))
    text[:, :4] = concept[:, None] + 1
    return video, text


class FrameEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, DIM, PATCH, stride=PATCH)
        self.pos = nn.Parameter(torch.randn(1, (SIZE // PATCH) ** 2, DIM) * 0.02)
        self.mlp = nn.Sequential(nn.LayerNorm(DIM), nn.Linear(DIM, DIM * 2), nn.GELU(), nn.Linear(DIM * 2, DIM))

    def forward(self, frames):
        x = self.patch(frames).flatten(2).transpose(1, 2) + self.pos
        x = x + self.mlp(x)
        return x.mean(1)


class VideoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.frames = FrameEncoder()
        self.time_pos = nn.Parameter(torch.zeros(1, FRAMES, DIM))
        self.temporal = nn.TransformerEncoderLayer(DIM, 4, DIM * 2, dropout=0.0, batch_first=True)
        self.proj = nn.Linear(DIM, DIM)

    def forward(self, video):
        b, t = video.shape[:2]
        x = self.frames(video.flatten(0, 1)).view(b, t, DIM) + self.time_pos
        x = self.temporal(x)
        return self.proj(x.mean(1))


class TextEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.layer = nn.TransformerEncoderLayer(DIM, 4, DIM * 2, dropout=0.0, batch_first=True)
        self.proj = nn.Linear(DIM, DIM)

    def forward(self, ids):
        return self.proj(self.layer(self.tok(ids)).mean(1))


class VideoCLIP(nn.Module):
    def __init__(self):
        super().__init__()
        self.video = VideoEncoder()
        self.text = TextEncoder()
        self.temperature = 0.02

    def forward(self, video, ids):
        v = F.normalize(self.video(video), dim=-1)
        t = F.normalize(self.text(ids), dim=-1)
        return v @ t.t() / self.temperature


def info_nce(logits):
    exp = logits.exp()
    p_v2t = exp.diagonal() / exp.sum(dim=1)
    p_t2v = exp.diagonal() / exp.sum(dim=0)
    return -(p_v2t.log().mean() + p_t2v.log().mean()) / 2


def main():
    model = VideoCLIP().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    video, text = make_pairs(256)
    bs = 32
    step = 0
    for epoch in range(3):
        perm = torch.randperm(video.shape[0])
        for i in range(0, video.shape[0], bs):
            idx = perm[i:i + bs]
            logits = model(video[idx].half(), text[idx])
            loss = info_nce(logits)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 4 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} max logit {logits.max().item():.2f}")
            step += 1

    model.eval()
    with torch.no_grad():
        logits = model(video[:64].half(), text[:64])
        acc = (logits.argmax(1) == torch.arange(64)).float().mean().item()
        print(f"final loss {info_nce(logits).item():.4f} retrieval@1 {acc:.3f}")


if __name__ == "__main__":
    main()
