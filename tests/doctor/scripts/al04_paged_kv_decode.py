import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS = 400, 128, 4, 2
HD = D // HEADS
BLOCK, NUM_BLOCKS = 8, 64


class PagedKVCache:
    def __init__(self, layers, dtype):
        shape = (layers, NUM_BLOCKS, BLOCK, HEADS, HD)
        self.k = torch.zeros(shape, dtype=dtype)
        self.v = torch.zeros(shape, dtype=dtype)
        self.free = list(range(NUM_BLOCKS))[::-1]
        self.tables = {}
        self.lens = {}

    def allocate(self, seq_id, n_tokens):
        n_blocks = math.ceil(n_tokens / BLOCK)
        self.tables[seq_id] = [self.free.pop() for _ in range(n_blocks)]
        self.lens[seq_id] = 0

    def append(self, layer, seq_id, k, v):
        pos = self.lens[seq_id]
        blk = self.tables[seq_id][pos // BLOCK]
        self.k[layer, blk, pos % BLOCK] = k
        self.v[layer, blk, pos % BLOCK] = v

    def block_table(self, seq_ids):
        width = max(len(self.tables[s]) for s in seq_ids)
        table = np.zeros((len(seq_ids), width))
        for i, s in enumerate(seq_ids):
            table[i, : len(self.tables[s])] = self.tables[s]
        return torch.from_numpy(table)

    def gather(self, layer, table_row, length):
        k = self.k[layer][table_row].reshape(-1, HEADS, HD)[:length]
        v = self.v[layer][table_row].reshape(-1, HEADS, HD)[:length]
        return k, v


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(D), nn.RMSNorm(D)
        self.wqkv = nn.Linear(D, 3 * D, bias=False)
        self.wo = nn.Linear(D, D, bias=False)
        self.mlp = nn.Sequential(nn.Linear(D, 3 * D, bias=False), nn.GELU(), nn.Linear(3 * D, D, bias=False))

    def forward(self, x, layer_idx, cache, seq_ids, table):
        q, k, v = self.wqkv(self.norm1(x)).view(len(seq_ids), 3, HEADS, HD).unbind(1)
        outs = []
        for i, s in enumerate(seq_ids):
            cache.append(layer_idx, s, k[i], v[i])
            ks, vs = cache.gather(layer_idx, table[i], cache.lens[s] + 1)
            a = F.scaled_dot_product_attention(q[i][:, None], ks.transpose(0, 1), vs.transpose(0, 1))
            outs.append(a.reshape(D))
        x = x + self.wo(torch.stack(outs))
        return x + self.mlp(self.norm2(x))


class PagedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.layers = nn.ModuleList(DecoderLayer() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def decode_step(self, tokens, cache, seq_ids):
        x = self.emb(tokens)
        table = cache.block_table(seq_ids)
        for li, layer in enumerate(self.layers):
            x = layer(x, li, cache, seq_ids, table)
        for s in seq_ids:
            cache.lens[s] += 1
        return self.lm_head(self.norm(x))


model = PagedLM().to(torch.bfloat16).eval()
cache = PagedKVCache(LAYERS, torch.bfloat16)
requests = {f"seq{i}": torch.randint(0, VOCAB, (int(torch.randint(4, 12, ())),)).tolist() for i in range(4)}
max_new = 16
longest = max(len(p) for p in requests.values())
for sid in requests:
    cache.allocate(sid, longest + max_new)

seq_ids = list(requests)
with torch.no_grad():
    outputs = {s: [] for s in seq_ids}
    for step in range(longest + max_new):
        toks = []
        for s in seq_ids:
            p = requests[s]
            toks.append(p[step] if step < len(p) else (outputs[s][-1] if outputs[s] else p[-1]))
        logits = model.decode_step(torch.tensor(toks), cache, seq_ids)
        logp = F.log_softmax(logits.float(), dim=-1)
        nxt = logp.argmax(-1)
        for i, s in enumerate(seq_ids):
            if step >= len(requests[s]) - 1:
                outputs[s].append(int(nxt[i]))
        if step % 4 == 0:
            print(f"step {step}: mean max logprob {logp.max(-1).values.mean().item():.4f}")
for s in seq_ids:
    print(s, outputs[s][:max_new])
