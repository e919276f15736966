"""Word-level LSTM language model trained in pure fp16. Uses a static loss scale to keep
small fp16 gradients from underflowing; gradients are unscaled on the fly by tensor
hooks registered on every parameter, and a full backward hook logs the gradient
magnitude flowing out of the decoder."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
LOSS_SCALE = 2.0 ** 16
WORDS = ("the cat sat on the mat while the dog slept near the door and the bird sang "
         "in the tree by the river as the sun went down over the hill").split()
vocab = sorted(set(WORDS))
stoi = {w: i for i, w in enumerate(vocab)}
stream = torch.tensor([stoi[w] for w in WORDS * 60])
SEQ, BATCH = 20, 16


class LSTMLM(nn.Module):
    def __init__(self, v, emb=64, hid=128):
        super().__init__()
        self.embed = nn.Embedding(v, emb)
        self.lstm = nn.LSTM(emb, hid, num_layers=2, batch_first=True, dropout=0.1)
        self.decoder = nn.Linear(hid, v)

    def forward(self, x):
        h, _ = self.lstm(self.embed(x))
        return self.decoder(h)


decoder_grad_log = []


def log_decoder_grad(module, grad_input, grad_output):
    decoder_grad_log.append(grad_output[0].abs().max().item())


def main():
    t0 = time.time()
    model = LSTMLM(len(vocab)).half()
    for p in model.parameters():
        p.register_hook(lambda g: g / LOSS_SCALE)  # unscale
    model.decoder.register_full_backward_hook(log_decoder_grad)
    opt = torch.optim.SGD(model.parameters(), lr=0.5)

    for step in range(30):
        ix = torch.randint(0, len(stream) - SEQ - 1, (BATCH,))
        x = torch.stack([stream[i:i + SEQ] for i in ix])
        y = torch.stack([stream[i + 1:i + SEQ + 1] for i in ix])
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, len(vocab)), y.view(-1))
        opt.zero_grad()
        (loss * LOSS_SCALE).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if step % 10 == 0:
            print(f"step {step:2d} loss {loss.item():.4f} max|dL/dlogits| {decoder_grad_log[-1]:.3e}")
    print(f"final loss {loss.item():.4f} ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
