"""Two LoHa adapters on one tiny Llama (count up / count down), switched with set_adapter for sampling."""
import torch
import torch.nn.functional as F
from transformers import LlamaConfig, LlamaForCausalLM
from peft import LoHaConfig, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ = 64, 24

config = LlamaConfig(
    vocab_size=VOCAB, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64,
)
base = LlamaForCausalLM(config)


def loha_cfg():
    return LoHaConfig(r=8, alpha=16, target_modules=["q_proj", "v_proj", "o_proj", "gate_proj", "down_proj"],
                      modules_to_save=["lm_head"])


model = get_peft_model(base, loha_cfg(), adapter_name="up")
model.add_adapter("down", loha_cfg())


def batch(direction, n=32):
    start = torch.randint(0, VOCAB, (n, 1))
    return (start + direction * torch.arange(SEQ)) % VOCAB


for name, direction in [("up", 1), ("down", -1)]:
    model.set_adapter(name)
    optim = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
    for step in range(80):
        ids = batch(direction)
        loss = model(input_ids=ids, labels=ids).loss
        optim.zero_grad()
        loss.backward()
        optim.step()
    print(f"adapter {name}: final train loss {loss.item():.4f}")


@torch.no_grad()
def sample(model, prompt, new_tokens=12, temperature=0.7):
    out = model(input_ids=prompt, use_cache=True)
    past, logits = out.past_key_values, out.logits[:, -1]
    tokens, logps = [], []
    for _ in range(new_tokens):
        weights = torch.exp(logits / temperature)
        probs = weights / weights.sum(-1, keepdim=True)
        nxt = torch.multinomial(probs, 1)
        logps.append(torch.log(probs.gather(-1, nxt)))
        tokens.append(nxt)
        out = model(input_ids=nxt, past_key_values=past, use_cache=True)
        past, logits = out.past_key_values, out.logits[:, -1]
    return torch.cat(tokens, 1), torch.cat(logps, 1)


model = model.half().eval()
prompt = torch.tensor([[10, 11, 12, 13], [40, 39, 38, 37]])
for name in ["up", "down"]:
    model.set_adapter(name)
    toks, logps = sample(model, prompt)
    print(f"[{name}] samples: {toks.tolist()} mean logp {logps.float().mean().item():.3f}")
