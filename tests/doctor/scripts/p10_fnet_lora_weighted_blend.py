"""Two LoRA adapters on a tiny FNet classifier (two data domains), blended with add_weighted_adapter."""
import torch
import torch.nn.functional as F
from transformers import FNetConfig, FNetForSequenceClassification
from peft import LoraConfig, get_peft_model

torch.manual_seed(0)
VOCAB, SEQ, N_CLS = 120, 32, 3

config = FNetConfig(
    vocab_size=VOCAB, hidden_size=64, num_hidden_layers=2, intermediate_size=128,
    max_position_embeddings=64, num_labels=N_CLS,
)
base = FNetForSequenceClassification(config)


def lora(r):
    return LoraConfig(r=r, lora_alpha=r, lora_dropout=0.0,
                      target_modules=["projection", "dense", "classifier"])


def domain_batch(domain, n=48):
    """Label = which keyword (3, 4 or 5) occurs most; the two domains use different filler vocabularies."""
    lo, hi = (10, 60) if domain == "news" else (60, VOCAB)
    ids = torch.randint(lo, hi, (n, SEQ))
    y = torch.randint(0, N_CLS, (n,))
    pos = torch.rand(n, SEQ) < 0.25
    ids = torch.where(pos, (3 + y)[:, None].expand(-1, SEQ), ids)
    return ids, y


model = get_peft_model(base, lora(8), adapter_name="news")
model.add_adapter("reviews", lora(8))

for name in ["news", "reviews"]:
    model.set_adapter(name)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-3)
    for step in range(60):
        ids, y = domain_batch(name)
        loss = F.cross_entropy(model(input_ids=ids).logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"[{name}] train loss {loss.item():.4f}")

model.add_weighted_adapter(["news", "reviews"], [0.5, 0.5], adapter_name="both", combination_type="cat")
model.set_adapter("both")
model.eval()

serving = model.to(torch.bfloat16)


@torch.no_grad()
def evaluate(domain):
    torch.manual_seed(7)
    ids, y = domain_batch(domain, 256)
    logits = serving(input_ids=ids).logits.float()
    return F.cross_entropy(logits, y).item(), (logits.argmax(-1) == y).float().mean().item()


for domain in ["news", "reviews"]:
    loss, acc = evaluate(domain)
    print(f"blend on {domain}: loss {loss:.4f} acc {acc:.3f}")
