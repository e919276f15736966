import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB = 320


class CausalLM(nn.Module):
    def __init__(self, d, layers, heads):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.pos = nn.Parameter(torch.randn(512, d) * 0.02)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(t, dtype=self.pos.dtype)
        h = self.emb(ids) + self.pos[:t]
        h = self.body(h, mask=mask, is_causal=True)
        return self.head(self.norm(h))


def probs_from_logits(logits, temperature, top_k):
    logits = logits.float() / temperature
    if top_k:
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1:]
        logits = logits.masked_fill(logits < kth, float("-inf"))
    return torch.softmax(logits, dim=-1)


@torch.inference_mode()
def speculative_generate(target, draft, prompt, max_new=40, gamma=4, temperature=0.8, top_k=50):
    ids = prompt.clone()
    proposed = accepted = 0
    while ids.shape[1] - prompt.shape[1] < max_new:
        draft_ids, qs = ids, []
        for _ in range(gamma):
            q = probs_from_logits(draft(draft_ids)[:, -1], temperature, top_k)
            nxt = torch.multinomial(q, 1)
            qs.append(q)
            draft_ids = torch.cat([draft_ids, nxt], dim=1)
        p_all = probs_from_logits(target(draft_ids)[:, ids.shape[1] - 1:], temperature, top_k)
        n_ok = 0
        for i in range(gamma):
            tok = draft_ids[0, ids.shape[1] + i]
            p_tok, q_tok = p_all[0, i, tok], qs[i][0, tok]
            if torch.rand(()) * q_tok <= p_tok:
                n_ok += 1
                continue
            residual = torch.clamp(p_all[0, i] - qs[i][0], min=0.0)
            residual = residual / residual.sum().clamp_min(torch.finfo(residual.dtype).tiny)
            fix = torch.multinomial(residual, 1)
            ids = torch.cat([draft_ids[:, : ids.shape[1] + i], fix[None]], dim=1)
            break
        else:
            bonus = torch.multinomial(p_all[0, gamma], 1)
            ids = torch.cat([draft_ids, bonus[None]], dim=1)
        proposed += gamma
        accepted += n_ok
    return ids, accepted / proposed


@torch.inference_mode()
def sequence_logprob(model, ids, start):
    logp = F.log_softmax(model(ids).float(), dim=-1)
    tok = logp[:, start - 1:-1].gather(-1, ids[:, start:, None]).squeeze(-1)
    return tok.sum().item(), tok.mean().item()


target = CausalLM(192, 4, 6).to(torch.bfloat16).eval()
draft = CausalLM(96, 1, 4).to(torch.bfloat16).eval()
draft.emb.weight.data.copy_(target.emb.weight.data[:, :96])

for trial in range(3):
    prompt = torch.randint(0, VOCAB, (1, 16))
    out, rate = speculative_generate(target, draft, prompt)
    total, mean = sequence_logprob(target, out, prompt.shape[1])
    print(f"trial {trial}: generated {out.shape[1] - 16} tokens, acceptance {rate:.3f}, "
          f"target logprob {total:.3f} (mean {mean:.4f})")
