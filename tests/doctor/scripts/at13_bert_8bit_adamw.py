import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)

BLOCK = 256


def quantize_blockwise(x):
    flat = x.reshape(-1)
    pad = (-flat.numel()) % BLOCK
    blocks = torch.nn.functional.pad(flat, (0, pad)).view(-1, BLOCK)
    absmax = blocks.abs().amax(dim=1, keepdim=True).clamp_min(1e-12)
    q = torch.round(blocks / absmax * 127).to(torch.int8)
    return q, absmax


def dequantize_blockwise(q, absmax, like):
    return (q.float() * absmax / 127).view(-1)[: like.numel()].view_as(like)


class AdamW8bit(torch.optim.Optimizer):
    """First moment as blockwise int8, second moment in bf16; the update itself is done in fp32."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
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
                    st["m_q"], st["m_scale"] = quantize_blockwise(torch.zeros_like(p, dtype=torch.float32))
                    st["v"] = torch.zeros_like(p, dtype=torch.bfloat16)
                st["step"] += 1
                g = p.grad.float()
                m = dequantize_blockwise(st["m_q"], st["m_scale"], p).mul_(b1).add_(g, alpha=1 - b1)
                v = st["v"].float().mul_(b2).addcmul_(g, g, value=1 - b2)
                st["m_q"], st["m_scale"] = quantize_blockwise(m)
                st["v"] = v.to(torch.bfloat16)
                denom = (v / (1 - b2 ** st["step"])).sqrt_().add_(group["eps"])
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.addcdiv_(m / (1 - b1 ** st["step"]), denom, value=-group["lr"])


def make_data(n, gen, seq=32, vocab=200):
    ids = torch.randint(5, vocab, (n, seq), generator=gen)
    labels = torch.randint(0, 2, (n,), generator=gen)
    marker = torch.where(labels == 1, 3, 4)
    pos = torch.randint(1, seq, (n, 3), generator=gen)
    ids.scatter_(1, pos, marker[:, None].expand(-1, 3))
    ids[:, 0] = 2
    return ids, labels


def main():
    gen = torch.Generator().manual_seed(0)
    x_tr, y_tr = make_data(768, gen)
    x_va, y_va = make_data(256, gen)
    cfg = BertConfig(vocab_size=200, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, max_position_embeddings=64, num_labels=2)
    model = BertForSequenceClassification(cfg)
    opt = AdamW8bit(model.parameters(), lr=1e-3)

    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(x_tr), generator=gen)
        for i in range(0, len(perm), 32):
            idx = perm[i:i + 32]
            out = model(input_ids=x_tr[idx], labels=y_tr[idx])
            opt.zero_grad(set_to_none=True)
            out.loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            out = model(input_ids=x_va, labels=y_va)
            acc = (out.logits.argmax(-1) == y_va).float().mean().item()
        print(f"epoch {epoch} val loss {out.loss.item():.4f} val acc {acc:.3f}")
    state_bytes = sum(s["m_q"].numel() + 2 * s["v"].numel() for s in opt.state.values())
    print(f"optimizer state {state_bytes / 2**20:.2f} MiB")


if __name__ == "__main__":
    main()
