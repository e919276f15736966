import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

T_VIDEO, CROP, N_MELS, MEL_PER_FRAME = 5, 24, 40, 4


def make_batch(bs):
    """Mouth-crop clips and mel windows; half of the pairs are shifted out of sync."""
    drive = torch.randn(bs, T_VIDEO + 6)
    video = torch.randn(bs, 1, T_VIDEO, CROP, CROP) * 0.2
    mouth = drive[:, 3:3 + T_VIDEO]
    video[:, 0, :, 12:18, 6:18] += mouth[:, :, None, None]
    in_sync = torch.rand(bs) < 0.5
    shift = torch.where(in_sync, torch.zeros(bs, dtype=torch.long), torch.randint(1, 4, (bs,)))
    mel = torch.randn(bs, 1, N_MELS, T_VIDEO * MEL_PER_FRAME) * 0.2
    for i in range(bs):
        env = drive[i, 3 + shift[i]:3 + shift[i] + T_VIDEO].repeat_interleave(MEL_PER_FRAME)
        mel[i, 0, 5:20] += env
    return video, mel, in_sync.float()


class VideoEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv3d(1, 16, (3, 5, 5), stride=(1, 2, 2), padding=(1, 2, 2)), nn.BatchNorm3d(16), nn.ReLU(),
            nn.Conv3d(16, 32, (3, 3, 3), stride=(1, 2, 2), padding=1), nn.BatchNorm3d(32), nn.ReLU(),
            nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Linear(32, dim),
        )

    def forward(self, x):
        return self.net(x)


class AudioEncoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, dim),
        )

    def forward(self, x):
        return self.net(x)


class SyncNet(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.video_encoder = VideoEncoder(dim)
        self.audio_encoder = AudioEncoder(dim)
        self.logit_scale = nn.Parameter(torch.tensor(5.0))
        self.logit_bias = nn.Parameter(torch.tensor(-2.0))
        self.audio_coeff, self.noise_scale = 1.0, 0.1

    def modulate(self, grad):
        # OGM-GE: damp the dominant modality's gradient and add matched Gaussian noise
        return grad * self.audio_coeff + torch.randn(grad.shape) * grad.std() * self.noise_scale

    def forward(self, video, mel):
        v = self.video_encoder(video)
        a = self.audio_encoder(mel)
        if self.training and a.requires_grad:
            a.register_hook(self.modulate)
        sim = F.cosine_similarity(v, a, dim=-1)
        return self.logit_scale * sim + self.logit_bias, v, a


def main():
    model = SyncNet().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
    for step in range(30):
        video, mel, target = make_batch(16)
        logits, v, a = model(video.half(), mel.half())
        loss = F.binary_cross_entropy_with_logits(logits.float(), target)
        with torch.no_grad():
            ratio = a.float().norm(dim=-1).mean() / v.float().norm(dim=-1).mean()
            model.audio_coeff = float(1 - torch.tanh(0.5 * F.relu(ratio - 1)))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step:2d} sync loss {loss.item():.4f} audio_coeff {model.audio_coeff:.3f}")

    model.eval()
    with torch.no_grad():
        video, mel, target = make_batch(64)
        logits, _, _ = model(video.half(), mel.half())
        acc = ((logits.float() > 0) == (target > 0)).float().mean().item()
        print(f"sync accuracy {acc:.3f}")


if __name__ == "__main__":
    main()
