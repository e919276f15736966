"""Prompt tuning on a tiny Llama kept in bf16: only a soft prompt is trained."""
import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

N_VIRTUAL = 8


def build_model():
    cfg = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=4, vocab_size=256,
                      max_position_embeddings=128)
    model = LlamaForCausalLM(cfg).to(torch.bfloat16)
    model.eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return model


class SoftPrompt(nn.Module):
    def __init__(self, n_tokens, hidden, init_from):
        super().__init__()
        # initialise from random vocab embeddings (common trick)
        idx = torch.randint(0, init_from.shape[0], (n_tokens,))
        self.soft_prompt = nn.Parameter(init_from[idx].clone().float())

    def forward(self, token_embeds):
        b = token_embeds.shape[0]
        prompt = self.soft_prompt.unsqueeze(0).expand(b, -1, -1)
        return torch.cat([prompt, token_embeds], dim=1)


def main():
    model = build_model()
    embed = model.get_input_embeddings()
    prompter = SoftPrompt(N_VIRTUAL, model.config.hidden_size, embed.weight.detach())
    opt = torch.optim.AdamW(prompter.parameters(), lr=3e-3)

    for step in range(4):
        input_ids = torch.randint(0, 256, (2, 16))
        inputs_embeds = prompter(embed(input_ids))
        labels = torch.cat([torch.full((2, N_VIRTUAL), -100), input_ids], dim=1)
        out = model(inputs_embeds=inputs_embeds, labels=labels)
        opt.zero_grad()
        out.loss.backward()
        opt.step()
        print(f"step {step} loss {out.loss.item():.4f}")


if __name__ == "__main__":
    main()
