import math

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM

torch.manual_seed(0)


class LowMemAdamW(torch.optim.Optimizer):
    """AdamW that keeps both moments in bfloat16 (half the optimizer memory)."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 state_dtype=torch.bfloat16):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))
        self.state_dtype = state_dtype

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p, dtype=self.state_dtype)
                    state["exp_avg_sq"] = torch.zeros_like(p, dtype=self.state_dtype)
                state["step"] += 1
                t = state["step"]
                grad = p.grad
                state["exp_avg"].lerp_(grad, 1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                m_hat = state["exp_avg"].float() / (1 - beta1 ** t)
                v_hat = state["exp_avg_sq"].float() / (1 - beta2 ** t)
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.addcdiv_(m_hat, v_hat.sqrt().add_(group["eps"]), value=-group["lr"])


def batches(n_batches, bsz, seq, vocab, gen):
    for _ in range(n_batches):
        a = torch.randint(3, vocab, (bsz, 1), generator=gen)
        b = torch.randint(1, 5, (bsz, 1), generator=gen)
        yield (a + b * torch.arange(seq)) % vocab


def main():
    cfg = Qwen2Config(vocab_size=256, hidden_size=96, intermediate_size=256, num_hidden_layers=3,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      tie_word_embeddings=True, use_sliding_window=False)
    model = Qwen2ForCausalLM(cfg)
    print(f"params: {sum(p.numel() for p in model.parameters()) / 1e6:.2f}M")
    opt = LowMemAdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    gen = torch.Generator().manual_seed(1)

    model.train()
    for step, ids in enumerate(batches(40, 16, 48, cfg.vocab_size, gen)):
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        losses = [model(input_ids=ids, labels=ids).loss.item() for ids in batches(4, 16, 48, cfg.vocab_size, gen)]
    val = sum(losses) / len(losses)
    print(f"val loss {val:.4f} ppl {math.exp(val):.2f}")


if __name__ == "__main__":
    main()
