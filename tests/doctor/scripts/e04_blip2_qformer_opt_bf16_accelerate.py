"""BLIP-2-style captioning: frozen ViT -> Q-Former (32 learned queries) -> frozen OPT decoder.
Everything runs in bfloat16; the Q-Former and the language projection are trained with accelerate."""
import torch
import torch.nn as nn
from accelerate import Accelerator
from transformers import ViTConfig, ViTModel, OPTConfig, OPTForCausalLM

torch.manual_seed(0)


class QFormerLayer(nn.Module):
    def __init__(self, dim, vdim, heads=4):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.cross_attn = nn.MultiheadAttention(dim, heads, kdim=vdim, vdim=vdim, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.ln1, self.ln2, self.ln3 = nn.LayerNorm(dim), nn.LayerNorm(dim), nn.LayerNorm(dim)

    def forward(self, q, image_embeds):
        h = self.ln1(q)
        q = q + self.self_attn(h, h, h, need_weights=False)[0]
        q = q + self.cross_attn(self.ln2(q), image_embeds, image_embeds, need_weights=False)[0]
        return q + self.mlp(self.ln3(q))


class QFormer(nn.Module):
    def __init__(self, num_query=32, dim=64, vdim=64, depth=2):
        super().__init__()
        self.query_tokens = torch.zeros(1, num_query, dim)
        nn.init.trunc_normal_(self.query_tokens, std=0.02)
        self.layers = nn.ModuleList(QFormerLayer(dim, vdim) for _ in range(depth))

    def forward(self, image_embeds):
        q = self.query_tokens.expand(image_embeds.shape[0], -1, -1)
        for layer in self.layers:
            q = layer(q, image_embeds)
        return q


class TinyBlip2(nn.Module):
    def __init__(self):
        super().__init__()
        self.vision_model = ViTModel(ViTConfig(image_size=32, patch_size=8, hidden_size=64,
                                               intermediate_size=128, num_hidden_layers=2,
                                               num_attention_heads=4), add_pooling_layer=False)
        self.qformer = QFormer()
        self.language_projection = nn.Linear(64, 64)
        self.language_model = OPTForCausalLM(OPTConfig(vocab_size=600, hidden_size=64, ffn_dim=128,
                                                       num_hidden_layers=2, num_attention_heads=4,
                                                       word_embed_proj_dim=64, max_position_embeddings=128))

    def forward(self, pixel_values, input_ids, labels):
        with torch.no_grad():
            image_embeds = self.vision_model(pixel_values).last_hidden_state
        query_out = self.qformer(image_embeds)
        prefix = self.language_projection(query_out)
        text_embeds = self.language_model.get_input_embeddings()(input_ids)
        inputs_embeds = torch.cat([prefix, text_embeds], dim=1)
        labels = torch.cat([torch.full(prefix.shape[:2], -100), labels], dim=1)
        return self.language_model(inputs_embeds=inputs_embeds, labels=labels)


model = TinyBlip2().to(torch.bfloat16)
model.vision_model.requires_grad_(False)
model.language_model.requires_grad_(False)

accelerator = Accelerator(cpu=True)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
model, opt = accelerator.prepare(model, opt)

for step in range(8):
    pixel_values = torch.randn(4, 3, 32, 32, dtype=torch.bfloat16)
    captions = torch.randint(3, 600, (4, 10))
    loss = model(pixel_values, captions, captions.clone()).loss
    accelerator.backward(loss)
    opt.step()
    opt.zero_grad()
    accelerator.print(f"step {step} loss {loss.item():.4f}")
