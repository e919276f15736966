import math

import torch
import torch.nn.functional as F
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)


class LOMO:
    """Fused update inside backward; with clipping, a first backward pass only measures the grad norm."""

    def __init__(self, model, lr=1e-2, loss_scale=2.0 ** 16, clip_grad_norm=1.0):
        self.model = model
        self.lr = lr
        self.loss_scale = loss_scale
        self.clip_grad_norm = clip_grad_norm
        self.measuring = False
        self.norms = []
        self.clip_coef = 1.0
        for p in model.parameters():
            if p.requires_grad:
                p.register_post_accumulate_grad_hook(self._hook)

    @torch.no_grad()
    def _hook(self, p):
        if self.measuring:
            self.norms.append(p.grad.norm(2.0))
        else:
            grad = p.grad.float() / self.loss_scale * self.clip_coef
            p.add_(grad.to(p.dtype), alpha=-self.lr)
        p.grad = None

    def grad_norm(self, loss):
        self.measuring, self.norms = True, []
        (loss * self.loss_scale).backward(retain_graph=True)
        self.measuring = False
        total = torch.norm(torch.stack(self.norms), 2.0) / self.loss_scale
        self.clip_coef = min(1.0, self.clip_grad_norm / (total.item() + 1e-6))
        return total

    def fused_backward(self, loss, lr):
        self.lr = lr
        (loss * self.loss_scale).backward()


def main():
    gen = torch.Generator().manual_seed(0)
    vocab, seq = 300, 32
    keys = torch.randint(10, vocab, (256, 1), generator=gen)
    data = (keys + torch.arange(seq) * 7) % vocab
    train, val = data[:192], data[192:]
    cfg = GPT2Config(vocab_size=vocab, n_positions=seq, n_embd=96, n_layer=2, n_head=4,
                     resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0, bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(cfg).half()
    model.config.use_cache = False
    lomo = LOMO(model, lr=3e-2)

    total_steps, step = 2 * (len(train) // 32), 0
    for epoch in range(2):
        model.train()
        perm = torch.randperm(len(train), generator=gen)
        for i in range(0, len(train), 32):
            ids = train[perm[i:i + 32]]
            logits = model(input_ids=ids).logits.float()
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, vocab), ids[:, 1:].reshape(-1))
            lr = 3e-2 * 0.5 * (1 + math.cos(math.pi * step / total_steps))
            gnorm = lomo.grad_norm(loss)
            lomo.fused_backward(loss, lr)
            step += 1
            if step % 3 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f} grad_norm {gnorm.item():.3f} lr {lr:.4f}")
        model.eval()
        with torch.no_grad():
            logits = model(input_ids=val).logits.float()
            vloss = F.cross_entropy(logits[:, :-1].reshape(-1, vocab), val[:, 1:].reshape(-1))
        print(f"epoch {epoch} val loss {vloss.item():.4f}")


if __name__ == "__main__":
    main()
