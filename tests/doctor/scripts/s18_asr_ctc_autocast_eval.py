import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
ALPHABET = "_abcdefghij "
BLANK, N_FEAT = 0, 32
CHAR_TEMPLATES = torch.randn(len(ALPHABET), N_FEAT) * 1.5


def synth_utterance(max_chars=12):
    text = "".join(random.choice(ALPHABET[1:]) for _ in range(random.randint(4, max_chars)))
    frames = []
    for ch in text:
        frames += [CHAR_TEMPLATES[ALPHABET.index(ch)]] * random.randint(3, 5)
    feats = torch.stack(frames) + 0.6 * torch.randn(len(frames), N_FEAT)
    return feats, torch.tensor([ALPHABET.index(c) for c in text])


def collate(batch):
    feats = nn.utils.rnn.pad_sequence([f for f, _ in batch], batch_first=True)
    feat_lens = torch.tensor([len(f) for f, _ in batch])
    targets = torch.cat([t for _, t in batch])
    target_lens = torch.tensor([len(t) for _, t in batch])
    return feats, feat_lens, targets, target_lens


class ConvCTC(nn.Module):
    def __init__(self, d=128):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(N_FEAT, d, 5, padding=2), nn.GELU(),
            nn.Conv1d(d, d, 5, padding=2), nn.GELU(),
            nn.Conv1d(d, d, 3, padding=1), nn.GELU(),
        )
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, len(ALPHABET))

    def forward(self, x):
        h = self.net(x.transpose(1, 2)).transpose(1, 2)
        return self.head(self.norm(h))


def greedy_decode(logits, lens):
    best = logits.argmax(-1)
    out = []
    for seq, L in zip(best, lens):
        seq = torch.unique_consecutive(seq[:L])
        out.append("".join(ALPHABET[i] for i in seq.tolist() if i != BLANK))
    return out


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, d[0] = d[0], i
        for j, cb in enumerate(b, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (ca != cb))
    return d[-1]


model = ConvCTC()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for step in range(250):
    feats, feat_lens, targets, target_lens = collate([synth_utterance() for _ in range(32)])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(feats)
    log_probs = logits.float().log_softmax(-1).transpose(0, 1)
    loss = F.ctc_loss(log_probs, targets, feat_lens, target_lens, blank=BLANK, zero_infinity=True)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 49:
        print(f"step {step + 1} ctc loss {loss.item():.4f}")

model.eval()
test = [synth_utterance() for _ in range(200)]
errors = chars = 0
total_loss = 0.0
with torch.inference_mode(), torch.autocast("cpu", dtype=torch.bfloat16):
    for i in range(0, len(test), 50):
        feats, feat_lens, targets, target_lens = collate(test[i:i + 50])
        logits = model(feats).float()
        total_loss += F.ctc_loss(logits.log_softmax(-1).transpose(0, 1), targets, feat_lens, target_lens,
                                 blank=BLANK, reduction="sum").item()
        hyps = greedy_decode(logits, feat_lens)
        refs = ["".join(ALPHABET[c] for c in t.tolist()) for t in torch.split(targets, target_lens.tolist())]
        errors += sum(edit_distance(h, r) for h, r in zip(hyps, refs))
        chars += sum(len(r) for r in refs)
print(f"test CER {errors / chars:.4f}  ctc loss/utt {total_loss / len(test):.4f}")
print("example:", repr(hyps[0]), "vs", repr(refs[0]))
