"""Evaluate a LLaVA-style model on synthetic VQA pairs on CPU (fp32).

The stage-1 projector was released as a separate fp16 safetensors file (mm_projector style keys);
it is loaded into the model's projector after stripping the prefix."""
import os
import tempfile

import torch
import torch.nn as nn
from safetensors.torch import load_file, save_file
from transformers import CLIPVisionConfig, CLIPVisionModel, LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
IMAGE_TOKEN_ID = 31


class Projector(nn.Module):
    def __init__(self, vdim=64, tdim=96):
        super().__init__()
        self.linear_1 = nn.Linear(vdim, tdim)
        self.act = nn.GELU()
        self.linear_2 = nn.Linear(tdim, tdim)

    def forward(self, x):
        return self.linear_2(self.act(self.linear_1(x)))


class TinyLlava(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_tower = CLIPVisionModel(CLIPVisionConfig(
            image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
            num_hidden_layers=2, num_attention_heads=4))
        self.projector = Projector()
        self.language_model = LlamaForCausalLM(LlamaConfig(
            vocab_size=800, hidden_size=96, intermediate_size=192, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=128))

    def forward(self, input_ids, pixel_values, labels=None):
        feats = self.vision_tower(pixel_values, output_hidden_states=True).hidden_states[-2][:, 1:]
        image_features = self.projector(feats)
        embeds = self.language_model.get_input_embeddings()(input_ids)
        mask = (input_ids == IMAGE_TOKEN_ID).unsqueeze(-1).expand_as(embeds)
        embeds = embeds.masked_scatter(mask, image_features.to(embeds.dtype))
        return self.language_model(inputs_embeds=embeds, labels=labels)


tmp = tempfile.TemporaryDirectory()
workdir = tmp.name
ckpt = os.path.join(workdir, "mm_projector.safetensors")
# --- what the stage-1 run released ---
released = Projector()
save_file({f"model.mm_projector.{k}": v.half() for k, v in released.state_dict().items()}, ckpt)

# --- evaluation ---
model = TinyLlava().eval()
sd = load_file(ckpt)
sd = {k.replace("model.mm_projector.", ""): v for k, v in sd.items()}
missing, unexpected = model.projector.load_state_dict(sd, strict=True, assign=True)
print("projector loaded", missing, unexpected)

total, n = 0.0, 0
with torch.no_grad():
    for i in range(6):
        q = torch.randint(40, 800, (4, 6))
        a = torch.randint(40, 800, (4, 4))
        input_ids = torch.cat([torch.full((4, 16), IMAGE_TOKEN_ID), q, a], dim=1)
        labels = input_ids.clone()
        labels[:, :22] = -100
        out = model(input_ids, torch.rand(4, 3, 32, 32), labels=labels)
        total += out.loss.item()
        n += 1
print(f"eval loss {total / n:.4f}")
