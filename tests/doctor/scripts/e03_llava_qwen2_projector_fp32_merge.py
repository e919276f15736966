"""Stage-1 LLaVA-style alignment: train only the MLP projector between a frozen CLIP vision
tower and a frozen Qwen2 language model (both bf16). The projector is trained in fp32."""
import torch
import torch.nn as nn
from transformers import CLIPVisionConfig, CLIPVisionModel, Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)
IMAGE_TOKEN_ID = 511
N_PATCHES = 16


class Projector(nn.Module):
    def __init__(self, vdim, tdim):
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
        self.language_model = Qwen2ForCausalLM(Qwen2Config(
            vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
            tie_word_embeddings=True))
        self.projector = Projector(64, 64)

    def encode_images(self, pixel_values):
        with torch.no_grad():
            out = self.vision_tower(pixel_values, output_hidden_states=True)
        feats = out.hidden_states[-2][:, 1:]          # drop CLS, penultimate layer
        return self.projector(feats.float())

    def forward(self, input_ids, pixel_values, attention_mask, labels):
        inputs_embeds = self.language_model.get_input_embeddings()(input_ids)
        image_features = self.encode_images(pixel_values)
        mask = (input_ids == IMAGE_TOKEN_ID).unsqueeze(-1).expand_as(inputs_embeds)
        inputs_embeds = inputs_embeds.masked_scatter(mask, image_features)
        return self.language_model(inputs_embeds=inputs_embeds, attention_mask=attention_mask,
                                   labels=labels)


model = TinyLlava()
model.vision_tower.to(torch.bfloat16).requires_grad_(False)
model.language_model.to(torch.bfloat16).requires_grad_(False)

opt = torch.optim.AdamW(model.projector.parameters(), lr=1e-3)


def make_batch(bs=4, text_len=12):
    text = torch.randint(3, 500, (bs, text_len))
    img = torch.full((bs, N_PATCHES), IMAGE_TOKEN_ID)
    input_ids = torch.cat([text[:, :2], img, text[:, 2:]], dim=1)
    labels = input_ids.clone()
    labels[:, :2 + N_PATCHES] = -100
    return input_ids, torch.randn(bs, 3, 32, 32).bfloat16(), torch.ones_like(input_ids), labels


for step in range(10):
    input_ids, pixel_values, attention_mask, labels = make_batch()
    loss = model(input_ids, pixel_values, attention_mask, labels).loss
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.4f}")
