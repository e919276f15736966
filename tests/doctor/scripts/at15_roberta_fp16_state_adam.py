import math

import torch
from torch.utils.data import DataLoader, TensorDataset
from transformers import RobertaConfig, RobertaForSequenceClassification

torch.manual_seed(0)


class HalfStateAdam(torch.optim.Optimizer):
    """Adam whose moment buffers live in float16 to halve optimizer memory."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            b1, b2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                st = self.state[p]
                if not st:
                    st["step"] = 0
                    st["exp_avg"] = torch.zeros_like(p, dtype=torch.float16)
                    st["exp_avg_sq"] = torch.zeros_like(p, dtype=torch.float16)
                st["step"] += 1
                grad = p.grad
                if group["weight_decay"]:
                    grad = grad.add(p, alpha=group["weight_decay"])
                exp_avg, exp_avg_sq = st["exp_avg"], st["exp_avg_sq"]
                exp_avg.mul_(b1).add_(grad, alpha=1 - b1)
                exp_avg_sq.mul_(b2).addcmul_(grad, grad, value=1 - b2)
                bc1 = 1 - b1 ** st["step"]
                bc2 = 1 - b2 ** st["step"]
                denom = (exp_avg_sq.sqrt() / math.sqrt(bc2)).add_(group["eps"])
                p.addcdiv_(exp_avg, denom, value=-group["lr"] / bc1)


def make_split(n, gen, seq=24, vocab=300):
    ids = torch.randint(10, vocab, (n, seq), generator=gen)
    y = torch.randint(0, 3, (n,), generator=gen)
    key_pos = torch.randint(1, seq, (n,), generator=gen)
    ids[torch.arange(n), key_pos] = 5 + y
    ids[:, 0] = 0
    return TensorDataset(ids, y)


def main():
    gen = torch.Generator().manual_seed(0)
    train_dl = DataLoader(make_split(1024, gen), batch_size=32, shuffle=True, generator=gen)
    val_ds = make_split(256, gen)
    cfg = RobertaConfig(vocab_size=300, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, max_position_embeddings=40, num_labels=3,
                        pad_token_id=1, bos_token_id=0, eos_token_id=2)
    model = RobertaForSequenceClassification(cfg)
    opt = HalfStateAdam(model.parameters(), lr=5e-4, weight_decay=0.01)

    for epoch in range(2):
        model.train()
        total = 0.0
        for ids, y in train_dl:
            out = model(input_ids=ids, labels=y)
            opt.zero_grad(set_to_none=True)
            out.loss.backward()
            opt.step()
            total += out.loss.item()
        model.eval()
        with torch.no_grad():
            ids, y = val_ds.tensors
            out = model(input_ids=ids, labels=y)
            acc = (out.logits.argmax(-1) == y).float().mean().item()
        print(f"epoch {epoch} train loss {total / len(train_dl):.4f} val loss {out.loss.item():.4f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
