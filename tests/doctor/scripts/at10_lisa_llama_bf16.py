import random

import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)
random.seed(0)


class LISAScheduler:
    """Layerwise Importance Sampling: train embeddings/head plus a few randomly chosen decoder layers."""

    def __init__(self, model, n_active=1, interval=10, lr=1e-3):
        self.model, self.n_active, self.interval, self.lr = model, n_active, interval, lr
        self.layers = model.model.layers
        self.active = []
        for p in model.parameters():
            p.requires_grad_(False)
        for mod in (model.model.embed_tokens, model.model.norm, model.lm_head):
            for p in mod.parameters():
                p.requires_grad_(True)
        self.optimizer = None

    def switch(self):
        for i in self.active:
            self.layers[i].to(torch.bfloat16).requires_grad_(False)
        self.active = sorted(random.sample(range(len(self.layers)), self.n_active))
        for i in self.active:
            self.layers[i].float().requires_grad_(True)
        params = [p for p in self.model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(params, lr=self.lr, weight_decay=0.0)
        return self.active

    def maybe_switch(self, step):
        if step % self.interval == 0:
            print(f"step {step}: active layers {self.switch()}")
        return self.optimizer


def main():
    cfg = LlamaConfig(vocab_size=256, hidden_size=96, intermediate_size=256, num_hidden_layers=4,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=64)
    model = LlamaForCausalLM(cfg).to(torch.bfloat16)
    lisa = LISAScheduler(model, n_active=1, interval=10, lr=2e-3)

    gen = torch.Generator().manual_seed(0)
    def batch(n=16, seq=40):
        a = torch.randint(0, 256, (n, 1), generator=gen)
        return (a + torch.arange(seq) * 5) % 256

    model.train()
    for step in range(40):
        opt = lisa.maybe_switch(step)
        ids = batch()
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        ids = batch(64)
        print(f"eval loss {model(input_ids=ids, labels=ids).loss.item():.4f}")


if __name__ == "__main__":
    main()
