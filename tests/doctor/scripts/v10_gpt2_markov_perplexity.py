import math
import os
import tempfile

import torch
import torch.nn.functional as F
from datasets import Dataset
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
workdir = tempfile.mkdtemp()
VOCAB, CTX = 512, 128

# synthetic "corpus": a noisy order-1 Markov chain over the vocabulary
transition = torch.softmax(torch.randn(VOCAB, VOCAB) * 2.0, dim=-1)


def sample_stream(n_tokens):
    out = torch.empty(n_tokens, dtype=torch.long)
    out[0] = torch.randint(0, VOCAB, (1,))
    for i in range(1, n_tokens):
        out[i] = torch.multinomial(transition[out[i - 1]], 1)
    return out


train_stream = sample_stream(40 * CTX)
chunks = train_stream.view(-1, CTX)
train_ds = Dataset.from_dict({"input_ids": chunks.tolist()}).with_format("torch")

config = GPT2Config(vocab_size=VOCAB, n_positions=CTX, n_embd=64, n_layer=2, n_head=4,
                    bos_token_id=0, eos_token_id=0)
model = GPT2LMHeadModel(config)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
model.train()
for epoch in range(2):
    for i in range(0, len(train_ds), 8):
        ids = train_ds[i:i + 8]["input_ids"]
        loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
    print(f"epoch {epoch}: last train loss {loss.item():.3f}")

ckpt = os.path.join(workdir, "gpt2-markov")
model.save_pretrained(ckpt)


@torch.no_grad()
def perplexity(model, stream, batch_size=8):
    model.eval()
    windows = stream[: (len(stream) // CTX) * CTX].view(-1, CTX)
    total_nll, total_tokens = 0.0, 0
    for i in range(0, windows.shape[0], batch_size):
        ids = windows[i:i + batch_size]
        logits = model(input_ids=ids).logits
        nll = F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1), reduction="sum")
        total_nll += nll
        total_tokens += ids[:, 1:].numel()
    return math.exp(total_nll / total_tokens)


eval_stream = sample_stream(128 * CTX)
fp16_model = GPT2LMHeadModel.from_pretrained(ckpt, dtype=torch.float16)
print(f"held-out perplexity (fp16 inference): {perplexity(fp16_model, eval_stream):.2f}")
