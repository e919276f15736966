"""Train a pairwise reward model with the HF Trainer (bf16 autocast), then use it for
best-of-n sampling from a bf16 OLMo policy.
"""
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from transformers import (
    GPTNeoXConfig,
    GPTNeoXForSequenceClassification,
    OlmoConfig,
    OlmoForCausalLM,
    Trainer,
    TrainingArguments,
)

torch.manual_seed(0)
rng = np.random.default_rng(0)

VOCAB = 160
PAD = 0
SEQ = 16
N_PAIRS = 48
BEST_OF = 4


class PairDataset(torch.utils.data.Dataset):
    def __init__(self):
        self.rows = []
        for _ in range(N_PAIRS):
            prompt = rng.integers(3, VOCAB, 6)
            good = np.sort(rng.integers(3, VOCAB, SEQ - 6))
            bad = rng.integers(3, VOCAB, SEQ - 6)
            self.rows.append((np.concatenate([prompt, good]), np.concatenate([prompt, bad])))

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        c, r = self.rows[i]
        return {"chosen": torch.as_tensor(c, dtype=torch.long), "rejected": torch.as_tensor(r, dtype=torch.long)}


def collate(rows):
    return {
        "chosen": torch.stack([r["chosen"] for r in rows]),
        "rejected": torch.stack([r["rejected"] for r in rows]),
    }


@torch.no_grad()
def sample(model, ids, max_new, temperature=1.0):
    out = model(input_ids=ids, use_cache=True)
    for _ in range(max_new):
        probs = torch.softmax(out.logits[:, -1].float() / temperature, dim=-1)
        nxt = torch.multinomial(probs, 1)
        ids = torch.cat([ids, nxt], dim=1)
        out = model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
    return ids


class PairwiseRewardTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        ids = torch.cat([inputs["chosen"], inputs["rejected"]])
        scores = model(input_ids=ids).logits.squeeze(-1).float()
        bs = inputs["chosen"].size(0)
        loss = -F.logsigmoid(scores[:bs] - scores[bs:]).mean()
        return (loss, {"scores": scores}) if return_outputs else loss


def main():
    rm_cfg = GPTNeoXConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        intermediate_size=128,
        max_position_embeddings=64,
        num_labels=1,
        pad_token_id=PAD,
    )
    rm = GPTNeoXForSequenceClassification(rm_cfg)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir,
            per_device_train_batch_size=8,
            num_train_epochs=2,
            learning_rate=1e-4,
            bf16=True,
            use_cpu=True,
            logging_steps=3,
            save_strategy="no",
            report_to="none",
            remove_unused_columns=False,
        )
        PairwiseRewardTrainer(model=rm, args=args, train_dataset=PairDataset(), data_collator=collate).train()
    rm.eval()

    pol_cfg = OlmoConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        max_position_embeddings=64,
        pad_token_id=PAD,
        bos_token_id=1,
        eos_token_id=2,
    )
    policy = OlmoForCausalLM(pol_cfg).to(torch.bfloat16).eval()
    prompts = torch.randint(3, VOCAB, (3, 6))
    with torch.no_grad():
        for p in prompts:
            cands = sample(policy, p[None].repeat(BEST_OF, 1), SEQ - 6, temperature=0.8)
            scores = rm(input_ids=cands).logits.squeeze(-1)
            best = cands[scores.argmax()]
            print(f"scores {[round(s, 3) for s in scores.tolist()]} best {best[6:].tolist()}")
    print("done")


if __name__ == "__main__":
    main()
