"""HuBERT-style masked prediction pre-training on synthetic audio: k-means targets from
MFCC-like features, a CNN waveform encoder, span masking with a learned mask embedding,
and cosine-similarity logits against codeword embeddings.  bf16 autocast on CPU."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SR = 16000
N_CLUSTERS = 16


def synth_batch(bs, sec=1.0):
    n = int(SR * sec)
    t = torch.arange(n) / SR
    out = []
    for _ in range(bs):
        w = torch.zeros(n)
        pos = 0
        while pos < n:
            seg = int(torch.randint(1600, 4800, ()))
            f0 = float(torch.empty(()).uniform_(100, 300))
            formant = float(torch.empty(()).uniform_(500, 2500))
            tt = t[pos:pos + seg]
            w[pos:pos + seg] = 0.3 * torch.sin(2 * math.pi * f0 * tt) * (1 + 0.5 * torch.sin(2 * math.pi * formant * tt))
            pos += seg
        out.append(w + 0.01 * torch.randn(n))
    return torch.stack(out)


# ---------------- targets: k-means on log-spectral frames (fp32, offline) ---------------
def frame_feats(wav):
    spec = torch.stft(wav, 400, 320, window=torch.hann_window(400), return_complex=True, center=False)
    logspec = torch.log(spec.abs().pow(2) + 1e-6)  # (B, F, T)
    return logspec[:, :40].transpose(1, 2)  # (B, T, 40), hop 320 matches CNN stride


def kmeans(x, k, iters=10):
    c = x[torch.randperm(x.shape[0])[:k]].clone()
    for _ in range(iters):
        a = torch.cdist(x, c).argmin(1)
        for j in range(k):
            sel = x[a == j]
            if len(sel):
                c[j] = sel.mean(0)
    return c


fit_wav = synth_batch(16)
fit_feats = frame_feats(fit_wav).reshape(-1, 40)
CENTROIDS = kmeans(fit_feats, N_CLUSTERS)


def targets_for(wav):
    f = frame_feats(wav)
    return torch.cdist(f, CENTROIDS.expand(f.shape[0], -1, -1)).argmin(-1)


# ------------------------------------ model ------------------------------------------
class FeatureEncoder(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        spec = [(10, 5), (3, 2), (3, 2), (3, 2), (3, 2), (2, 2), (2, 2)]  # total stride 320
        layers, cin = [], 1
        for k, s in spec:
            layers += [nn.Conv1d(cin, dim, k, s, bias=False), nn.GELU()]
            cin = dim
        self.conv = nn.Sequential(*layers)
        self.norm = nn.GroupNorm(dim, dim)

    def forward(self, wav):
        return self.norm(self.conv(wav.unsqueeze(1))).transpose(1, 2)


class HuBERTLike(nn.Module):
    def __init__(self, dim=64, layers=2):
        super().__init__()
        self.feature_encoder = FeatureEncoder(dim)
        self.feature_projection = nn.Linear(dim, dim)
        self.mask_emb = nn.Parameter(torch.empty(dim).uniform_())
        enc_layer = nn.TransformerEncoderLayer(dim, 4, 4 * dim, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, layers)
        self.final_proj = nn.Linear(dim, dim)
        self.label_embs = nn.Parameter(torch.randn(N_CLUSTERS, dim))

    @staticmethod
    def span_mask(b, t, prob=0.5, span=5):
        mask = torch.zeros(b, t, dtype=torch.bool)
        n_starts = max(1, int(prob * t / span))
        for i in range(b):
            starts = torch.randperm(t - span)[:n_starts]
            for s in starts.tolist():
                mask[i, s:s + span] = True
        return mask

    def forward(self, wav, mask):
        x = self.feature_projection(self.feature_encoder(wav))
        x[mask] = self.mask_emb  # replace masked frames by the learned embedding
        x = self.encoder(x)
        proj = self.final_proj(x)
        logits = F.cosine_similarity(proj.unsqueeze(2), self.label_embs[None, None], dim=-1) / 0.1
        return logits


model = HuBERTLike()
opt = torch.optim.AdamW(model.parameters(), lr=5e-4, betas=(0.9, 0.98), weight_decay=0.01)

for step in range(15):
    wav = synth_batch(6)
    tgt = targets_for(wav)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        t_frames = model.feature_encoder.conv(wav[:1].unsqueeze(1)).shape[-1]
        mask = model.span_mask(wav.shape[0], t_frames)
        logits = model(wav, mask)
        tgt = tgt[:, : logits.shape[1]]
        loss = F.cross_entropy(logits[mask].float(), tgt[mask])
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    opt.step()
    if step % 5 == 0:
        acc = (logits[mask].argmax(-1) == tgt[mask]).float().mean()
        print(f"step {step:2d} loss {loss.item():.3f} masked acc {acc.item():.3f}")
