import torch
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)


class GaLoreProjector:
    def __init__(self, rank, update_gap=20, scale=0.25):
        self.rank, self.update_gap, self.scale = rank, update_gap, scale
        self.ortho = None

    def project(self, grad, step):
        if self.ortho is None or step % self.update_gap == 0:
            U, S, Vh = torch.linalg.svd(grad, full_matrices=False)
            self.ortho = U[:, : self.rank]
        return self.ortho.t() @ grad

    def project_back(self, low_rank):
        return (self.ortho @ low_rank.to(self.ortho.dtype)) * self.scale


class GaLoreAdamW(torch.optim.Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, rank=None))

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
                    if group["rank"]:
                        st["proj"] = GaLoreProjector(group["rank"])
                grad = p.grad
                if "proj" in st:
                    grad = st["proj"].project(grad, st["step"])
                if "m" not in st:
                    st["m"] = torch.zeros_like(grad, dtype=torch.float32)
                    st["v"] = torch.zeros_like(grad, dtype=torch.float32)
                st["step"] += 1
                st["m"].mul_(b1).add_(grad, alpha=1 - b1)
                st["v"].mul_(b2).addcmul_(grad, grad, value=1 - b2)
                upd = (st["m"] / (1 - b1 ** st["step"])) / ((st["v"] / (1 - b2 ** st["step"])).sqrt() + group["eps"])
                if "proj" in st:
                    upd = st["proj"].project_back(upd)
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_(upd.to(p.dtype), alpha=-group["lr"])


def main():
    cfg = LlamaConfig(vocab_size=256, hidden_size=128, intermediate_size=352, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64)
    model = LlamaForCausalLM(cfg).to(torch.bfloat16)
    galore_params = [p for n, p in model.named_parameters() if p.dim() == 2 and ("self_attn" in n or "mlp" in n)]
    ids_galore = {id(p) for p in galore_params}
    regular = [p for p in model.parameters() if id(p) not in ids_galore]
    opt = GaLoreAdamW([{"params": regular}, {"params": galore_params, "rank": 16}], lr=2e-3, weight_decay=0.0)
    print(f"galore params {sum(p.numel() for p in galore_params)}, regular {sum(p.numel() for p in regular)}")

    gen = torch.Generator().manual_seed(0)
    def batch(n=16, seq=48):
        start = torch.randint(0, 256, (n, 1), generator=gen)
        return (start + torch.arange(seq) * torch.randint(1, 4, (n, 1), generator=gen)) % 256

    model.train()
    for step in range(30):
        ids = batch()
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        ids = batch(64)
        print(f"eval loss {model(input_ids=ids, labels=ids).loss.item():.4f}")


if __name__ == "__main__":
    main()
