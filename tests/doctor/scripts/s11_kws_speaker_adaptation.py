import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
KEYWORDS = ["yes", "no", "up", "down", "left", "right", "stop", "go"]
N_MELS, FRAMES = 40, 64
TEMPLATES = torch.randn(len(KEYWORDS), N_MELS, 8)


def synth_utterances(n, speaker_tilt=0.0, noise=0.5):
    labels = torch.randint(0, len(KEYWORDS), (n,))
    feats = F.interpolate(TEMPLATES[labels], size=FRAMES, mode="linear", align_corners=False)
    tilt = speaker_tilt * torch.linspace(-1, 1, N_MELS)[None, :, None]
    offset = torch.randint(-6, 7, (1,)).item()
    feats = torch.roll(feats, offset, dims=2) + tilt + noise * torch.randn(n, N_MELS, FRAMES)
    return feats, labels


class KWSNet(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        self.frontend = nn.Sequential(
            nn.Conv1d(N_MELS, 64, 5, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 64, 5, padding=2, dilation=1), nn.BatchNorm1d(64), nn.ReLU(),
        )
        self.speaker_adapter = nn.Linear(64, 64)
        nn.init.eye_(self.speaker_adapter.weight)
        nn.init.zeros_(self.speaker_adapter.bias)
        self.head = nn.Linear(64, n_classes)

    def forward(self, x):
        h = self.frontend(x).mean(-1)
        return self.head(F.relu(self.speaker_adapter(h)))


model = KWSNet(len(KEYWORDS))
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(150):
    x, y = synth_utterances(64)
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 49:
        print(f"pretrain step {step + 1} loss {loss.item():.4f}")
model.eval()

new_speaker = dict(speaker_tilt=1.2, noise=0.7)
x_enroll, y_enroll = synth_utterances(24, **new_speaker)
x_test, y_test = synth_utterances(256, **new_speaker)


@torch.no_grad()
def evaluate(m, dtype):
    logits = m(x_test.to(dtype)).float()
    return F.cross_entropy(logits, y_test).item(), (logits.argmax(1) == y_test).float().mean().item()


print("before adaptation: loss %.4f acc %.3f" % evaluate(model, torch.float32))

device_model = model.half()
device_model.requires_grad_(False)
adapt_params = list(device_model.speaker_adapter.parameters())
for p in adapt_params:
    p.requires_grad_(True)
adapt_opt = torch.optim.SGD(adapt_params, lr=0.05)
LOSS_SCALE = 2.0 ** 16

for it in range(20):
    logits = device_model(x_enroll.half())
    loss = F.cross_entropy(logits, y_enroll)
    adapt_opt.zero_grad()
    (loss * LOSS_SCALE).backward()
    for p in adapt_params:
        p.grad.div_(LOSS_SCALE)
    adapt_opt.step()
    if it % 5 == 4:
        print(f"adapt iter {it + 1} enroll loss {loss.item():.4f}")

print("after adaptation: loss %.4f acc %.3f" % evaluate(device_model, torch.float16))
