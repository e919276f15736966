import math
import socket

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
from torch.utils.checkpoint import checkpoint

SR, N_TOKENS = 8000, 8
BLANK = 0


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def synth_utterance(gen):
    labels = torch.randint(1, N_TOKENS, (int(torch.randint(3, 7, (1,), generator=gen)),), generator=gen)
    pieces = []
    for k in labels.tolist():
        n = int(SR * (0.08 + 0.06 * torch.rand(1, generator=gen).item()))
        t = torch.arange(n) / SR
        pieces.append(torch.sin(2 * math.pi * (200 + 180 * k) * t) * torch.hann_window(n, periodic=False))
        pieces.append(torch.zeros(int(SR * 0.02)))
    wave = torch.cat(pieces)
    return wave + 0.02 * torch.randn(wave.shape, generator=gen), labels


def log_mel(wave, n_fft=256, hop=80, n_mels=40):
    spec = torch.stft(wave, n_fft, hop, window=torch.hann_window(n_fft), return_complex=True).abs().pow(2)
    fb = torch.nn.functional.one_hot(torch.linspace(0, n_mels - 1, n_fft // 2 + 1).long(), n_mels).float().T
    return torch.log(fb @ spec + 1e-6).transpose(-1, -2)


def make_batch(gen, bs=16):
    utts = [synth_utterance(gen) for _ in range(bs)]
    feats = [log_mel(w) for w, _ in utts]
    lengths = torch.tensor([f.size(0) for f in feats])
    x = torch.zeros(bs, int(lengths.max()), feats[0].size(1))
    for i, f in enumerate(feats):
        x[i, :f.size(0)] = f
    targets = torch.cat([l for _, l in utts])
    target_lengths = torch.tensor([len(l) for _, l in utts])
    return (x - x.mean()) / x.std(), lengths, targets, target_lengths


class ConvLayer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.conv = nn.Conv1d(d, d, 9, padding=4, groups=d)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))

    def forward(self, x):
        h = self.conv(self.norm(x).transpose(1, 2)).transpose(1, 2)
        return x + self.ff(F.gelu(h))


class CTCModel(nn.Module):
    def __init__(self, n_mels=40, d=64, layers=3):
        super().__init__()
        self.inp = nn.Linear(n_mels, d)
        self.layers = nn.ModuleList(ConvLayer(d) for _ in range(layers))
        self.out = nn.Linear(d, N_TOKENS)

    def forward(self, x):
        x = self.inp(x)
        for layer in self.layers:
            x = checkpoint(layer, x, use_reentrant=False) if self.training else layer(x)
        return self.out(x)


def greedy_decode(logits, lengths):
    best = logits.argmax(-1)
    hyps = []
    for seq, n in zip(best, lengths):
        seq = torch.unique_consecutive(seq[:n])
        hyps.append(seq[seq != BLANK].tolist())
    return hyps


def main():
    torch.manual_seed(0)
    dist.init_process_group("gloo", rank=0, world_size=1, init_method=f"tcp://127.0.0.1:{free_port()}")
    model = CTCModel()
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for layer in model.layers:
        fully_shard(layer, mp_policy=mp)
    fully_shard(model, mp_policy=mp)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-3, total_steps=150, pct_start=0.2)
    gen = torch.Generator().manual_seed(0)
    for step in range(150):
        x, lengths, targets, target_lengths = make_batch(gen)
        logits = model(x)
        log_probs = logits.float().log_softmax(-1).transpose(0, 1)
        loss = F.ctc_loss(log_probs, targets, lengths, target_lengths, blank=BLANK, zero_infinity=True)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step()
        if step % 30 == 0 or step == 149:
            print(f"step {step:2d} ctc {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e}")
    model.eval()
    with torch.no_grad():
        x, lengths, targets, target_lengths = make_batch(gen, bs=4)
        hyps = greedy_decode(model(x).float(), lengths)
    refs = torch.split(targets, target_lengths.tolist())
    for h, r in zip(hyps, refs):
        print("ref", r.tolist(), "hyp", h)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
