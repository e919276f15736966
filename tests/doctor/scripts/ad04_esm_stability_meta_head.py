import os
import tempfile

import torch
from accelerate import init_empty_weights
from datasets import Dataset
from torch.utils.data import DataLoader
from transformers import EsmConfig, EsmForSequenceClassification, EsmModel, get_linear_schedule_with_warmup

torch.manual_seed(3)
AA = "ACDEFGHIKLMNPQRSTVWY"
VOCAB = ["<cls>", "<pad>", "<eos>", "<unk>"] + list(AA) + ["<mask>"]
TOK = {t: i for i, t in enumerate(VOCAB)}
MAX_LEN = 48


def encode(seq):
    ids = [TOK["<cls>"]] + [TOK[a] for a in seq] + [TOK["<eos>"]]
    ids = ids + [TOK["<pad>"]] * (MAX_LEN - len(ids))
    return ids, [1 if i != TOK["<pad>"] else 0 for i in ids]


def make_stability_data(n):
    g = torch.Generator().manual_seed(7)
    rows = {"input_ids": [], "attention_mask": [], "labels": []}
    hydrophobic = set("AILMFVW")
    for _ in range(n):
        length = int(torch.randint(20, MAX_LEN - 2, (1,), generator=g))
        seq = "".join(AA[int(i)] for i in torch.randint(0, 20, (length,), generator=g))
        ids, mask = encode(seq)
        score = sum(a in hydrophobic for a in seq) / length - 0.35
        rows["input_ids"].append(ids)
        rows["attention_mask"].append(mask)
        rows["labels"].append(float(score * 4.0))
    return Dataset.from_dict(rows)


def tiny_config(**kw):
    return EsmConfig(vocab_size=len(VOCAB), hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                     intermediate_size=128, max_position_embeddings=MAX_LEN + 2, pad_token_id=TOK["<pad>"],
                     mask_token_id=TOK["<mask>"], position_embedding_type="rotary", token_dropout=False, **kw)


def pretend_pretrained_backbone(path):
    backbone = EsmModel(tiny_config(), add_pooling_layer=False)
    torch.save(backbone.state_dict(), path)


def main():
    work = tempfile.mkdtemp(prefix="esm_stab_")
    backbone_path = os.path.join(work, "esm_backbone.pt")
    pretend_pretrained_backbone(backbone_path)

    config = tiny_config(num_labels=1, problem_type="regression")
    with init_empty_weights():
        model = EsmForSequenceClassification(config)
    state = torch.load(backbone_path, map_location="cpu")
    state = {f"esm.{k}": v for k, v in state.items()}
    result = model.load_state_dict(state, strict=False, assign=True)
    print("missing keys:", result.missing_keys)

    train = make_stability_data(128).with_format("torch")
    valid = make_stability_data(32).with_format("torch")
    loader = DataLoader(train, batch_size=16, shuffle=True)
    opt = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01)
    sched = get_linear_schedule_with_warmup(opt, num_warmup_steps=4, num_training_steps=2 * len(loader))

    model.train()
    for epoch in range(2):
        for step, batch in enumerate(loader):
            out = model(**batch)
            opt.zero_grad()
            out.loss.backward()
            opt.step()
            sched.step()
            if step % 4 == 0:
                print(f"epoch {epoch} step {step} mse {out.loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        out = model(**valid[:])
    print("valid mse", out.loss.item())
    model.save_pretrained(os.path.join(work, "esm_stability"))

if __name__ == "__main__":
    main()
