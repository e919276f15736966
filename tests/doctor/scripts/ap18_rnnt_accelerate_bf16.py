import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

VOCAB, BLANK, FEAT = 12, 0, 32


class JointNetwork(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.enc_proj = nn.Linear(d, d)
        self.pred_proj = nn.Linear(d, d)
        self.out = nn.Linear(d, VOCAB)

    def forward(self, enc, pred):
        return self.out(torch.tanh(self.enc_proj(enc).unsqueeze(2) + self.pred_proj(pred).unsqueeze(1)))


class RNNT(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.subsample = nn.Conv1d(FEAT, d, 3, stride=2, padding=1)
        self.encoder = nn.GRU(d, d, batch_first=True)
        self.embed = nn.Embedding(VOCAB, d)
        self.predictor = nn.GRU(d, d, batch_first=True)
        self.joint = JointNetwork(d)

    def encode(self, feats):
        x = F.relu(self.subsample(feats.transpose(1, 2))).transpose(1, 2)
        return self.encoder(x)[0]

    def forward(self, feats, targets):
        sos = torch.full((targets.shape[0], 1), BLANK, dtype=torch.long, device=targets.device)
        pred = self.predictor(self.embed(torch.cat([sos, targets], 1)))[0]
        return self.joint(self.encode(feats), pred)


def rnnt_loss(logits, targets):
    lp = logits.float().log_softmax(-1)
    B, T, U1, _ = lp.shape
    blank = lp[..., BLANK]
    emit = lp[:, :, :-1].gather(-1, targets[:, None, :, None].expand(B, T, U1 - 1, 1)).squeeze(-1)
    neg_inf = torch.finfo(torch.float32).min
    alpha = [[None] * U1 for _ in range(T)]
    for t in range(T):
        for u in range(U1):
            if t == 0 and u == 0:
                alpha[t][u] = torch.zeros(B)
                continue
            a = alpha[t - 1][u] + blank[:, t - 1, u] if t > 0 else torch.full((B,), neg_inf)
            b = alpha[t][u - 1] + emit[:, t, u - 1] if u > 0 else torch.full((B,), neg_inf)
            alpha[t][u] = torch.logaddexp(a, b)
    return -(alpha[-1][-1] + blank[:, -1, -1]).mean()


def synth_dataset(n=64, T=24, U=4, seed=0):
    g = torch.Generator().manual_seed(seed)
    targets = torch.randint(1, VOCAB, (n, U), generator=g)
    feats = 0.2 * torch.randn(n, T, FEAT, generator=g)
    for u in range(U):
        feats[:, 6 * u:6 * u + 4, :VOCAB] += F.one_hot(targets[:, u], VOCAB).float().unsqueeze(1)
    return TensorDataset(feats, targets)


@torch.no_grad()
def greedy(model, feats, max_sym=2):
    enc = model.encode(feats)
    hyps = []
    for b in range(enc.shape[0]):
        tok = torch.tensor([[BLANK]])
        pred, h = model.predictor(model.embed(tok))
        out = []
        for t in range(enc.shape[1]):
            for _ in range(max_sym):
                k = model.joint(enc[b:b + 1, t:t + 1], pred).float().argmax(-1).item()
                if k == BLANK:
                    break
                out.append(k)
                pred, h = model.predictor(model.embed(torch.tensor([[k]])), h)
        hyps.append(out)
    return hyps


def main():
    torch.manual_seed(0)
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    model = RNNT()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    loader = DataLoader(synth_dataset(), batch_size=16, shuffle=True)
    model, opt, loader = accelerator.prepare(model, opt, loader)
    for epoch in range(3):
        for feats, targets in loader:
            logits = model(feats, targets)
            loss = rnnt_loss(logits, targets)
            opt.zero_grad()
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            assert math.isfinite(loss.item())
        accelerator.print(f"epoch {epoch} rnnt loss {loss.item():.4f}")
    model.eval()
    feats, targets = synth_dataset(8, seed=1).tensors
    with accelerator.autocast():
        hyps = greedy(accelerator.unwrap_model(model), feats)
    exact = sum(h == r for h, r in zip(hyps, targets.tolist()))
    accelerator.print(f"exact-match sequences {exact}/8, first hyp {hyps[0]} ref {targets[0].tolist()}")


if __name__ == "__main__":
    main()
