import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, SEQ, N_TASKS, EMB, HID = 32, 20, 4, 32, 96
BOS = 0


def task_batch(task_ids):
    steps = 1 + 2 * task_ids
    start = torch.randint(1, VOCAB, (len(task_ids), 1))
    pos = torch.arange(SEQ)[None]
    seq = 1 + (start + steps[:, None] * pos) % (VOCAB - 1)
    inp = torch.cat([torch.full((len(task_ids), 1), BOS), seq[:, :-1]], dim=1)
    return inp, seq


class FiLM(nn.Module):
    def __init__(self, n_tasks, dim):
        super().__init__()
        self.task_emb = nn.Embedding(n_tasks, 16)
        self.to_gamma_beta = nn.Linear(16, 2 * dim)

    def forward(self, h, task_ids):
        gamma, beta = self.to_gamma_beta(self.task_emb(task_ids)).chunk(2, dim=-1)
        return h * (1 + gamma[:, None]) + beta[:, None]


class TaskConditionedDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMB)
        self.film = FiLM(N_TASKS, EMB)
        self.rnn = nn.GRU(EMB, HID, batch_first=True)
        self.lm_head = nn.Linear(HID, VOCAB)

    def forward(self, tokens, task_ids, h=None):
        x = self.film(self.embed(tokens), task_ids)
        out, h = self.rnn(x, h)
        return self.lm_head(out), h


def sample(model, task_ids, first, length, h=None, temperature=0.7):
    tok = first
    out, logprob = [], torch.zeros(len(task_ids))
    for _ in range(length):
        logits, h = model(tok, task_ids, h)
        scaled = logits[:, -1] / temperature
        probs = torch.exp(scaled)
        probs = probs / probs.sum(-1, keepdim=True)
        tok = probs.argmax(-1, keepdim=True)
        logprob += probs.gather(-1, tok).squeeze(-1).float().log()
        out.append(tok)
    return torch.cat(out, dim=1), logprob / length


model = TaskConditionedDecoder()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for step in range(150):
    task_ids = torch.randint(0, N_TASKS, (32,))
    inp, tgt = task_batch(task_ids)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits, _ = model(inp, task_ids)
    loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), tgt.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 25 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")

model = model.half().eval()
with torch.no_grad():
    task_ids = torch.arange(N_TASKS)
    inp, tgt = task_batch(task_ids)
    prompt = inp[:, :2]
    _, h = model(prompt[:, :1], task_ids)
    gen, mean_lp = sample(model, task_ids, prompt[:, 1:2], SEQ - 2, h=h)
    acc = (gen == tgt[:, 1:SEQ - 1]).float().mean().item()
for t in range(N_TASKS):
    print(f"task {t}: {gen[t, :10].tolist()}  mean log-prob {mean_lp[t].item():.4f}")
print(f"continuation accuracy {acc:.3f}")
