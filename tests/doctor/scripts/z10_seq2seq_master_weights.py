import torch
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS = 0, 1, 2
VOCAB = 40


def make_pairs(gen, bs=64, max_len=10):
    """Toy 'translation': target is the reversed source with every token shifted by 3."""
    lengths = torch.randint(4, max_len + 1, (bs,), generator=gen)
    src = torch.full((bs, max_len), PAD, dtype=torch.long)
    tgt = torch.full((bs, max_len + 2), PAD, dtype=torch.long)
    for i, n in enumerate(lengths.tolist()):
        s = torch.randint(3, VOCAB - 3, (n,), generator=gen)
        src[i, :n] = s
        tgt[i, 0] = BOS
        tgt[i, 1:n + 1] = s.flip(0) + 3
        tgt[i, n + 1] = EOS
    return src, tgt


class Translator(nn.Module):
    def __init__(self, d=64, heads=4, layers=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, d, padding_idx=PAD)
        self.pos = nn.Parameter(torch.randn(1, 16, d) * 0.02)
        self.transformer = nn.Transformer(d, heads, layers, layers, 4 * d, dropout=0.0, batch_first=True)
        self.generator = nn.Linear(d, VOCAB)

    def forward(self, src, tgt_in):
        causal = nn.Transformer.generate_square_subsequent_mask(tgt_in.size(1), dtype=torch.bool)
        h = self.transformer(self.embed(src) + self.pos[:, :src.size(1)],
                             self.embed(tgt_in) + self.pos[:, :tgt_in.size(1)],
                             tgt_mask=causal, src_key_padding_mask=src == PAD,
                             tgt_key_padding_mask=tgt_in == PAD, memory_key_padding_mask=src == PAD)
        return self.generator(h)


class MixedPrecisionTrainer:
    def __init__(self, model, lr=1e-3, init_scale=2.0 ** 16, growth_interval=200):
        self.model = model.half()
        self.master = [p.detach().clone().float().requires_grad_(True) for p in model.parameters()]
        self.opt = torch.optim.Adam(self.master, lr=lr, betas=(0.9, 0.98))
        self.scale = init_scale
        self.growth_interval = growth_interval
        self.good_steps = 0

    def step(self, loss):
        if not torch.isfinite(loss):
            self.scale /= 2
            self.good_steps = 0
            return False
        self.model.zero_grad(set_to_none=True)
        (loss * self.scale).backward()
        for p, m in zip(self.model.parameters(), self.master):
            m.grad = p.grad.float() / self.scale
        self.opt.step()
        with torch.no_grad():
            for p, m in zip(self.model.parameters(), self.master):
                p.copy_(m)
        self.good_steps += 1
        if self.good_steps % self.growth_interval == 0:
            self.scale *= 2
        return True


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    trainer = MixedPrecisionTrainer(Translator())
    for step in range(40):
        src, tgt = make_pairs(gen)
        logits = trainer.model(src, tgt[:, :-1])
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), tgt[:, 1:].reshape(-1),
                               ignore_index=PAD, reduction="sum") / src.size(0)
        trainer.step(loss)
        if step % 5 == 0 or step == 39:
            with torch.no_grad():
                mask = tgt[:, 1:] != PAD
                acc = ((logits.argmax(-1) == tgt[:, 1:]) & mask).sum() / mask.sum()
            print(f"step {step:2d} loss {loss.item():.4f} tok-acc {acc.item():.3f} scale {trainer.scale:.0f}")


if __name__ == "__main__":
    main()
