import os
import random
import tempfile

import torch
from transformers import ElectraConfig, ElectraForTokenClassification

torch.manual_seed(0)
random.seed(0)

VOCAB, PAD = 350, 0
LABELS = ["O", "B-ORG", "I-ORG", "B-DATE"]
ADV_EPS, ADV_WEIGHT = 0.5, 1.0


def make_sentence(rng):
    ids, tags = [101 % VOCAB], [-100]
    for _ in range(rng.randint(5, 16)):
        r = rng.random()
        if r < 0.1:
            ids += [rng.randint(20, 40), rng.randint(40, 60)]
            tags += [1, 2]
        elif r < 0.18:
            ids.append(rng.randint(60, 80))
            tags.append(3)
        else:
            ids.append(rng.randint(100, VOCAB - 1))
            tags.append(0)
    return ids + [102 % VOCAB], tags + [-100]


def pad_batch(sents):
    n = max(len(s) for s, _ in sents)
    ids = torch.full((len(sents), n), PAD)
    labels = torch.full((len(sents), n), -100)
    for i, (s, t) in enumerate(sents):
        ids[i, : len(s)] = torch.tensor(s)
        labels[i, : len(t)] = torch.tensor(t)
    return ids, (ids != PAD).long(), labels


# a small discriminator checkpoint saved earlier
ckpt = os.path.join(tempfile.mkdtemp(), "electra-small-ner")
ElectraForTokenClassification(ElectraConfig(
    vocab_size=VOCAB, embedding_size=32, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
    intermediate_size=128, max_position_embeddings=64, num_labels=len(LABELS), pad_token_id=PAD,
)).save_pretrained(ckpt)

model = ElectraForTokenClassification.from_pretrained(ckpt, torch_dtype=torch.float16)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
embed_tokens = model.get_input_embeddings()

rng = random.Random(2)
train = [make_sentence(rng) for _ in range(128)]
for epoch in range(2):
    model.train()
    random.shuffle(train)
    for step in range(0, len(train), 16):
        ids, mask, labels = pad_batch(train[step:step + 16])
        embeds = embed_tokens(ids).detach().requires_grad_(True)
        clean = model(inputs_embeds=embeds, attention_mask=mask, labels=labels)
        (grad,) = torch.autograd.grad(clean.loss, embeds, retain_graph=True)
        # fast-gradient perturbation, normalised per token
        delta = ADV_EPS * grad / (grad.norm(dim=-1, keepdim=True) + 1e-8)
        adv = model(inputs_embeds=embed_tokens(ids) + delta.detach(), attention_mask=mask, labels=labels)
        clean_loss = model(input_ids=ids, attention_mask=mask, labels=labels).loss
        loss = clean_loss + ADV_WEIGHT * adv.loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 64 == 0:
            print(f"epoch {epoch} step {step // 16}: clean {clean_loss.item():.4f} adv {adv.loss.item():.4f}")

model.eval()
ids, mask, labels = pad_batch([make_sentence(rng) for _ in range(32)])
with torch.no_grad():
    out = model(input_ids=ids, attention_mask=mask, labels=labels)
keep = labels != -100
acc = (out.logits.argmax(-1)[keep] == labels[keep]).float().mean().item()
print(f"dev loss {out.loss.item():.4f} token acc {acc:.3f}")
