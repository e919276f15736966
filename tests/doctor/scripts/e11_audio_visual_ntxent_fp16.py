"""Self-supervised audio-visual correspondence: a ViT on video frames and an AST on log-mel
spectrograms, trained in half precision with a symmetric NT-Xent (SimCLR-style) loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from transformers import ASTConfig, ASTModel, ViTConfig, ViTModel

torch.manual_seed(0)


class AVModel(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.visual = ViTModel(ViTConfig(image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
                                         num_hidden_layers=2, num_attention_heads=4), add_pooling_layer=False)
        self.audio = ASTModel(ASTConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                        num_attention_heads=4, num_mel_bins=32, max_length=64,
                                        patch_size=16, frequency_stride=16, time_stride=16))
        self.v_head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, dim))
        self.a_head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, dim))

    def forward(self, frames, mel):
        v = self.visual(frames).last_hidden_state[:, 0]
        a = self.audio(mel).pooler_output
        return self.v_head(v), self.a_head(a)


def nt_xent(z1, z2, temperature=0.07):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2], dim=0), dim=-1)
    sim = z @ z.t() / temperature
    exp_sim = torch.exp(sim)
    denom = exp_sim.sum(dim=1) - exp_sim.diag()           # remove self-similarity
    idx = torch.arange(2 * n)
    pos = exp_sim[idx, (idx + n) % (2 * n)]
    return -torch.log(pos / denom).mean()


model = AVModel().half().train()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for step in range(10):
    frames = (torch.rand(8, 3, 32, 32) * 2 - 1).half()
    mel = torch.randn(8, 64, 32).half()
    zv, za = model(frames, mel)
    loss = nt_xent(zv, za)
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 3 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
