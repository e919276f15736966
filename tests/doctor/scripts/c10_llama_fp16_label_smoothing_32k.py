"""Continued pre-training of a tiny Llama (32k SentencePiece-sized vocab) in fp16, with a hand-written
label-smoothed cross-entropy."""
import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

config = LlamaConfig(
    vocab_size=32000, hidden_size=64, intermediate_size=176, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256, tie_word_embeddings=True,
)
model = LlamaForCausalLM(config).to(torch.float16)
model.train()


def label_smoothed_nll_loss(logits, target, epsilon=0.1, ignore_index=-100):
    lprobs = F.log_softmax(logits, dim=-1)
    pad = target.eq(ignore_index)
    target = target.clamp(min=0)
    nll_loss = -lprobs.gather(dim=-1, index=target.unsqueeze(-1)).squeeze(-1)
    smooth_loss = -lprobs.sum(dim=-1)
    nll_loss = nll_loss.masked_fill(pad, 0.0)
    smooth_loss = smooth_loss.masked_fill(pad, 0.0)
    eps_i = epsilon / lprobs.size(-1)
    loss = (1.0 - epsilon) * nll_loss + eps_i * smooth_loss
    n = (~pad).sum()
    return loss.sum() / n, nll_loss.sum() / n


opt = torch.optim.AdamW(model.parameters(), lr=2e-4, eps=1e-4)
g = torch.Generator().manual_seed(0)
for step in range(6):
    ids = torch.randint(1, 32000, (4, 40), generator=g)
    labels = ids.clone()
    labels[:, :4] = -100                      # don't train on the "prompt" part
    logits = model(input_ids=ids).logits
    loss, nll = label_smoothed_nll_loss(logits[:, :-1], labels[:, 1:])
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    if step % 2 == 0:
        print(f"step {step:2d}  loss {loss.item():.4f}  nll {nll.item():.4f}")
print("finished, last loss", loss.item())
