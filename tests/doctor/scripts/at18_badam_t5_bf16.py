import torch
from transformers import T5Config, T5ForConditionalGeneration

torch.manual_seed(0)


class BlockAdam:
    """BAdam: block coordinate descent; only one block is trained (with fp32 master weights) at a time."""

    def __init__(self, model, blocks, switch_every=8, lr=1e-3):
        self.model, self.blocks, self.switch_every, self.lr = model, blocks, switch_every, lr
        self.idx, self.t = -1, 0
        model.requires_grad_(False)

    def _activate(self, i):
        if self.idx >= 0:
            self.blocks[self.idx][1].requires_grad_(False)
        self.idx = i
        name, module = self.blocks[i]
        self.params = [p for p in module.parameters()]
        module.requires_grad_(True)
        self.masters = [p.detach().clone().float() for p in self.params]
        self.opt = torch.optim.Adam(self.masters, lr=self.lr)
        print(f"  -> training block {name}")

    def zero_grad(self):
        if self.t % self.switch_every == 0:
            self._activate((self.t // self.switch_every) % len(self.blocks))
        for p in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        for p, m in zip(self.params, self.masters):
            m.grad = p.grad
        self.opt.step()
        for p, m in zip(self.params, self.masters):
            p.copy_(m)
        self.t += 1


def make_batch(n, gen, src_len=12):
    src = torch.randint(3, 120, (n, src_len), generator=gen)
    tgt = torch.flip(src, dims=[1])
    return src, torch.cat([tgt, torch.ones(n, 1, dtype=torch.long)], dim=1)


def main():
    cfg = T5Config(vocab_size=128, d_model=64, d_kv=16, d_ff=128, num_layers=2, num_decoder_layers=2,
                   num_heads=4, dropout_rate=0.0, decoder_start_token_id=0, pad_token_id=0, eos_token_id=1)
    model = T5ForConditionalGeneration(cfg).to(torch.bfloat16)
    blocks = [(f"encoder.block.{i}", b) for i, b in enumerate(model.encoder.block)]
    blocks += [(f"decoder.block.{i}", b) for i, b in enumerate(model.decoder.block)]
    blocks.append(("shared", model.shared))
    opt = BlockAdam(model, blocks, switch_every=8, lr=3e-3)

    gen = torch.Generator().manual_seed(0)
    model.train()
    for step in range(40):
        src, labels = make_batch(32, gen)
        opt.zero_grad()
        loss = model(input_ids=src, labels=labels).loss
        loss.backward()
        opt.step()
        if step % 8 == 7:
            print(f"step {step} loss {loss.float().item():.4f}")

    model.eval()
    src, labels = make_batch(64, gen)
    with torch.no_grad():
        val = model(input_ids=src, labels=labels).loss.float().item()
        pred = model.generate(src[:4], max_new_tokens=14, do_sample=False)
    print(f"val loss {val:.4f}")
    print("sample", pred[0].tolist(), "target", labels[0].tolist())


if __name__ == "__main__":
    main()
