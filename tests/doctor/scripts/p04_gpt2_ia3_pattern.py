"""IA3 tuning of a small GPT-2 language model on a toy alternating-pattern task."""
import torch
from transformers import GPT2Config, GPT2LMHeadModel
from peft import IA3Config, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ, BS = 300, 40, 16
PAD = 0

config = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=64, n_layer=2, n_head=4, n_inner=192)
base = GPT2LMHeadModel(config).half()

ia3_cfg = IA3Config(
    task_type="CAUSAL_LM",
    target_modules=["c_attn", "mlp.c_proj"],
    feedforward_modules=["mlp.c_proj"],
)
model = get_peft_model(base, ia3_cfg, autocast_adapter_dtype=True)
model.print_trainable_parameters()


def make_batch(bs):
    lengths = torch.randint(SEQ // 2, SEQ + 1, (bs,))
    ids = torch.full((bs, SEQ), PAD)
    mask = torch.zeros(bs, SEQ, dtype=torch.long)
    for i, L in enumerate(lengths):
        a, b = torch.randint(1, VOCAB, (2,))
        seq = torch.arange(L) % 2
        ids[i, :L] = torch.where(seq == 0, a, b)  # alternating pair pattern
        mask[i, :L] = 1
    return ids, mask


def lm_loss(logits, ids, mask):
    logp = torch.log_softmax(logits[:, :-1], dim=-1)
    tok_nll = -logp.gather(-1, ids[:, 1:, None]).squeeze(-1)
    m = mask[:, 1:].to(tok_nll.dtype)
    return (tok_nll * m).sum() / m.sum()


params = [p for p in model.parameters() if p.requires_grad]
optim = torch.optim.SGD(params, lr=0.5, momentum=0.9)
loss_scale = 2.0 ** 16

for step in range(30):
    model.train()
    ids, mask = make_batch(BS)
    logits = model(input_ids=ids, attention_mask=mask).logits
    loss = lm_loss(logits, ids, mask)
    (loss * loss_scale).backward()
    for p in params:
        if p.grad is not None:
            p.grad.div_(loss_scale)
    optim.step()
    optim.zero_grad(set_to_none=True)
    if step % 10 == 0:
        print(f"step {step} loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    ids, mask = make_batch(64)
    eval_loss = lm_loss(model(input_ids=ids, attention_mask=mask).logits, ids, mask)
print(f"eval loss {eval_loss.item():.4f}")
