"""Flamingo-style gated cross-attention adapters inserted in front of every GPT-2 block.
Frozen CLIP vision encoder and frozen GPT-2; only the adapters train, under fp16 autocast.
Batches mix image-text pairs with text-only samples (media_mask = 0)."""
import math

import torch
import torch.nn as nn
from transformers import CLIPVisionConfig, CLIPVisionModel, GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)


class GatedCrossAttention(nn.Module):
    def __init__(self, dim, media_dim, heads=4):
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.norm = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, dim, bias=False)
        self.to_kv = nn.Linear(media_dim, 2 * dim, bias=False)
        self.to_out = nn.Linear(dim, dim, bias=False)
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.attn_gate = nn.Parameter(torch.tensor(0.0))
        self.ff_gate = nn.Parameter(torch.tensor(0.0))

    def forward(self, x, media, media_mask):
        b, n, _ = x.shape
        q = self.to_q(self.norm(x)).view(b, n, self.heads, self.head_dim).transpose(1, 2)
        k, v = self.to_kv(media).chunk(2, dim=-1)
        k = k.view(b, -1, self.heads, self.head_dim).transpose(1, 2)
        v = v.view(b, -1, self.heads, self.head_dim).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(self.head_dim)
        bias = (1.0 - media_mask[:, None, None, :].to(scores.dtype)) * torch.finfo(torch.float32).min
        attn = (scores + bias).softmax(dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, n, -1)
        x = x + self.attn_gate.tanh() * self.to_out(out)
        return x + self.ff_gate.tanh() * self.ff(x)


class FlamingoLayer(nn.Module):
    def __init__(self, decoder_layer, xattn):
        super().__init__()
        self.decoder_layer, self.xattn = decoder_layer, xattn
        self.media = self.media_mask = None

    def forward(self, hidden_states, *args, **kwargs):
        hidden_states = self.xattn(hidden_states, self.media, self.media_mask)
        return self.decoder_layer(hidden_states, *args, **kwargs)


vision = CLIPVisionModel(CLIPVisionConfig(image_size=32, patch_size=8, hidden_size=48, intermediate_size=96,
                                          num_hidden_layers=2, num_attention_heads=4)).eval().requires_grad_(False)
lm = GPT2LMHeadModel(GPT2Config(vocab_size=500, n_positions=64, n_embd=64, n_layer=2, n_head=4,
                                bos_token_id=1, eos_token_id=2))
lm.requires_grad_(False)
layers = lm.transformer.h
for i in range(len(layers)):
    layers[i] = FlamingoLayer(layers[i], GatedCrossAttention(64, 48))

adapters = [p for layer in layers for p in layer.xattn.parameters()]
opt = torch.optim.AdamW(adapters, lr=1e-3)


def batch(bs=6):
    pixel_values = torch.rand(bs, 3, 32, 32) * 2 - 1
    has_image = torch.tensor([1, 1, 0, 1, 0, 1])          # text-only samples from the text corpus
    input_ids = torch.randint(0, 500, (bs, 20))
    return pixel_values, has_image, input_ids


for step in range(10):
    pixel_values, has_image, input_ids = batch()
    with torch.autocast("cpu", dtype=torch.float16):
        with torch.no_grad():
            media = vision(pixel_values).last_hidden_state
        media_mask = has_image[:, None].expand(-1, media.shape[1])
        for layer in layers:
            layer.media, layer.media_mask = media, media_mask
        loss = lm(input_ids=input_ids, labels=input_ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
    if step % 3 == 0:
        print(f"step {step} loss {loss.item():.4f}")
print("done")
