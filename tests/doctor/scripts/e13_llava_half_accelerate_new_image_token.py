"""LLaVA-style instruction tuning of the projector and the token embeddings (a new <image> token is
added) with accelerate. The whole model is cast to fp16 to fit in memory."""
import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from transformers import CLIPVisionConfig, CLIPVisionModel, Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)
VOCAB = 400
N_PATCHES = 16


class TinyLlava(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_tower = CLIPVisionModel(CLIPVisionConfig(
            image_size=32, patch_size=8, hidden_size=64, intermediate_size=128,
            num_hidden_layers=2, num_attention_heads=4))
        self.projector = nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64))
        self.language_model = Qwen2ForCausalLM(Qwen2Config(
            vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
            tie_word_embeddings=True))
        self.language_model.resize_token_embeddings(VOCAB + 1)
        self.image_token_id = VOCAB

    def forward(self, input_ids, pixel_values, labels=None):
        with torch.no_grad():
            feats = self.vision_tower(pixel_values).last_hidden_state[:, 1:]
        image_features = self.projector(feats)
        embeds = self.language_model.get_input_embeddings()(input_ids)
        mask = (input_ids == self.image_token_id).unsqueeze(-1).expand_as(embeds)
        embeds = embeds.masked_scatter(mask, image_features.to(embeds.dtype))
        return self.language_model(inputs_embeds=embeds, labels=labels)


class VQAData(Dataset):
    def __len__(self):
        return 48

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        q = torch.randint(3, 200, (8,), generator=g)          # questions use the lower half of the vocab
        a = torch.randint(3, 200, (6,), generator=g)
        input_ids = torch.cat([torch.full((N_PATCHES,), VOCAB), q, a])
        labels = input_ids.clone()
        labels[:N_PATCHES + 8] = -100
        return {"input_ids": input_ids, "labels": labels,
                "pixel_values": (torch.rand(3, 32, 32, generator=g) * 2 - 1).half()}


model = TinyLlava().half()
model.vision_tower.requires_grad_(False)
for name, p in model.language_model.named_parameters():
    p.requires_grad_("embed_tokens" in name)

accelerator = Accelerator(cpu=True)
params = [p for p in model.parameters() if p.requires_grad]
opt = torch.optim.AdamW(params, lr=2e-4, weight_decay=0.0)
loader = DataLoader(VQAData(), batch_size=8, shuffle=True)
model, opt, loader = accelerator.prepare(model, opt, loader)

model.train()
for epoch in range(2):
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        if step % 2 == 0:
            accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
print("done")
