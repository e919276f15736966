import math
import os
import tempfile

import torch
from datasets import Dataset
from transformers import EsmConfig, EsmForMaskedLM, Trainer, TrainingArguments

torch.manual_seed(17)
AA = "ACDEFGHIKLMNPQRSTVWY"
SPECIAL = ["<cls>", "<pad>", "<eos>", "<unk>"]
VOCAB = SPECIAL + list(AA) + ["<mask>"]
TOK = {t: i for i, t in enumerate(VOCAB)}
MAX_LEN = 64


def synthetic_proteins(n, seed):
    g = torch.Generator().manual_seed(seed)
    motifs = ["GKSTL", "HEXXH".replace("X", "A"), "CPXC".replace("X", "G"), "DLSGK"]
    seqs = []
    for _ in range(n):
        length = int(torch.randint(30, MAX_LEN - 2, (1,), generator=g))
        s = [AA[int(i)] for i in torch.randint(0, 20, (length,), generator=g)]
        m = motifs[int(torch.randint(0, len(motifs), (1,), generator=g))]
        start = int(torch.randint(0, length - len(m), (1,), generator=g))
        s[start:start + len(m)] = list(m)
        seqs.append("".join(s))
    ids = [[TOK["<cls>"]] + [TOK[a] for a in s] + [TOK["<eos>"]] for s in seqs]
    return Dataset.from_dict({"input_ids": ids})


def mlm_collate(features, mask_prob=0.15):
    length = max(len(f["input_ids"]) for f in features)
    input_ids = torch.full((len(features), length), TOK["<pad>"])
    for i, f in enumerate(features):
        input_ids[i, :len(f["input_ids"])] = torch.tensor(f["input_ids"])
    attention_mask = (input_ids != TOK["<pad>"]).long()
    labels = input_ids.clone()
    maskable = attention_mask.bool() & (input_ids >= len(SPECIAL)) & (input_ids < TOK["<mask>"])
    chosen = (torch.rand(input_ids.shape) < mask_prob) & maskable
    labels[~chosen] = -100
    corrupted = input_ids.clone()
    replace = chosen & (torch.rand(input_ids.shape) < 0.8)
    corrupted[replace] = TOK["<mask>"]
    randomize = chosen & ~replace & (torch.rand(input_ids.shape) < 0.5)
    corrupted[randomize] = torch.randint(len(SPECIAL), TOK["<mask>"], (int(randomize.sum()),))
    return {"input_ids": corrupted, "attention_mask": attention_mask, "labels": labels}


def main():
    config = EsmConfig(vocab_size=len(VOCAB), hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                       intermediate_size=128, max_position_embeddings=MAX_LEN + 2, pad_token_id=TOK["<pad>"],
                       mask_token_id=TOK["<mask>"], position_embedding_type="rotary", token_dropout=False)
    model = EsmForMaskedLM(config)
    out_dir = tempfile.mkdtemp(prefix="esm_mlm_")
    args = TrainingArguments(output_dir=out_dir, per_device_train_batch_size=16, per_device_eval_batch_size=32,
                             num_train_epochs=2, learning_rate=1e-3, warmup_steps=4, weight_decay=0.01,
                             bf16=True, use_cpu=True, logging_steps=5, save_strategy="no", report_to=[],
                             dataloader_num_workers=0, disable_tqdm=True, remove_unused_columns=False)
    trainer = Trainer(model=model, args=args, train_dataset=synthetic_proteins(96, 1),
                      eval_dataset=synthetic_proteins(32, 2), data_collator=mlm_collate)
    trainer.train()
    metrics = trainer.evaluate()
    print(f"eval loss {metrics['eval_loss']:.4f} perplexity {math.exp(metrics['eval_loss']):.2f}")
    trainer.save_model(os.path.join(out_dir, "final"))


if __name__ == "__main__":
    main()
