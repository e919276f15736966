import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
V = 256


def byte_tokenize(text):
    return torch.from_numpy(np.frombuffer(text.encode("utf-8"), dtype=np.uint8).astype(np.int32))


class TinyCoder(nn.Module):
    def __init__(self, d, n_layers, n_heads, max_len=512):
        super().__init__()
        self.emb = nn.Embedding(V, d)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, n_heads, 4 * d, dropout=0.0, batch_first=True)
        self.body = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, V)

    def forward(self, ids):
        T = ids.shape[-1]
        x = self.emb(ids) + self.pos(torch.arange(T))
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        return self.head(self.body(x, mask=mask, is_causal=True))


@torch.inference_mode()
def speculative_generate(target, draft, prompt, max_new=64, k=4, temperature=0.8):
    n = prompt.numel()
    seq = torch.zeros(n + max_new + k + 1, dtype=prompt.dtype)
    seq[:n] = prompt
    proposed = accepted = 0
    while n < prompt.numel() + max_new:
        q_probs = []
        for i in range(k):
            q = (draft(seq[None, :n + i])[0, -1] / temperature).softmax(-1)
            seq[n + i] = torch.multinomial(q, 1)
            q_probs.append(q)
        q_probs = torch.stack(q_probs)
        p_probs = (target(seq[None, :n + k])[0, n - 1:n + k] / temperature).softmax(-1)
        drafted = seq[n:n + k, None]
        p_tok = torch.take_along_dim(p_probs[:k], drafted, dim=-1).squeeze(-1)
        q_tok = torch.take_along_dim(q_probs, drafted, dim=-1).squeeze(-1)
        accept = torch.rand(k) < (p_tok / q_tok).clamp(max=1.0)
        n_acc = int(accept.long().cumprod(0).sum())
        proposed += k
        accepted += n_acc
        if n_acc < k:
            residual = (p_probs[n_acc] - q_probs[n_acc]).clamp(min=0)
            residual = residual / residual.sum() if residual.sum() > 0 else p_probs[n_acc]
            seq[n + n_acc] = torch.multinomial(residual, 1)
        else:
            seq[n + k] = torch.multinomial(p_probs[k], 1)
        n += n_acc + 1
    return seq[:n], accepted / max(proposed, 1)


corpus = [
    "def add(a, b):\n    return a + b\n",
    "for i in range(10):\n    print(i)\n",
    "class Point:\n    def __init__(self, x, y):\n        self.x = x\n",
    "import os\npath = os.path.join(root, name)\n",
] * 8
target = TinyCoder(128, 4, 4)
draft = TinyCoder(64, 1, 2)
opt = torch.optim.Adam(list(target.parameters()) + list(draft.parameters()), lr=2e-3)
for epoch in range(3):
    for text in corpus[:12]:
        ids = byte_tokenize(text).long()
        loss = 0.0
        for m in (target, draft):
            logits = m(ids[None, :-1])[0]
            loss = loss + nn.functional.cross_entropy(logits, ids[1:])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} joint loss {loss.item():.3f}")

target.eval()
draft.eval()
for prompt_text in ["def add(", "for i in ", "import "]:
    out, rate = speculative_generate(target, draft, byte_tokenize(prompt_text), max_new=40)
    text = bytes(out.to(torch.uint8).tolist()).decode("utf-8", errors="replace")
    print(f"acceptance {rate:.2f} | {text!r}")
