"""Reward-weighted regression (RWR / AWR-style) fine-tuning with the HF Trainer.

Phase 1: sample completions from the StableLM policy and score them with a reward
model served in fp16; scores are kept as a float16 NumPy array.
Phase 2: fine-tune the policy with the Trainer on its own samples, each sequence's
NLL weighted by exp(z / beta) where z is the standardised reward in the batch.
"""
import tempfile

import numpy as np
import torch
import torch.nn.functional as F
from transformers import (
    StableLmConfig,
    StableLmForCausalLM,
    StableLmForSequenceClassification,
    Trainer,
    TrainingArguments,
)

torch.manual_seed(0)

VOCAB = 128
PAD = 0
PROMPT_LEN = 5
MAX_NEW = 8
N_PROMPTS = 8
N_PER_PROMPT = 4
BETA = 0.1


def cfg(**kw):
    return StableLmConfig(
        vocab_size=VOCAB,
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=64,
        pad_token_id=PAD,
        **kw,
    )


@torch.no_grad()
def sample(model, ids, max_new):
    out = model(input_ids=ids, use_cache=True)
    for _ in range(max_new):
        nxt = torch.multinomial(torch.softmax(out.logits[:, -1].float(), dim=-1), 1)
        ids = torch.cat([ids, nxt], dim=1)
        out = model(input_ids=nxt, past_key_values=out.past_key_values, use_cache=True)
    return ids


class SampleSet(torch.utils.data.Dataset):
    def __init__(self, ids, scores):
        self.ids = ids
        self.scores = scores

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "score": self.scores[i]}


def collate(rows):
    ids = torch.stack([torch.as_tensor(r["input_ids"]) for r in rows])
    labels = ids.clone()
    labels[:, :PROMPT_LEN] = -100
    scores = torch.from_numpy(np.array([r["score"] for r in rows]))
    return {"input_ids": ids, "labels": labels, "score": scores}


class RWRTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        out = model(input_ids=inputs["input_ids"])
        logits = out.logits[:, :-1]
        labels = inputs["labels"][:, 1:]
        nll = F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=-100, reduction="none")
        seq_nll = nll.sum(-1) / (labels != -100).sum(-1)
        s = inputs["score"]
        z = (s - s.mean()) / (s.std() + 1e-6)
        w = torch.exp(z / BETA)
        w = w / w.sum()
        loss = (w * seq_nll).sum()
        return (loss, out) if return_outputs else loss


def main():
    policy = StableLmForCausalLM(cfg())
    reward_model = StableLmForSequenceClassification(cfg(num_labels=1)).half().eval()

    # ---- phase 1: sample and score
    prompts = torch.randint(3, VOCAB, (N_PROMPTS, PROMPT_LEN))
    with torch.no_grad():
        samples = sample(policy, prompts.repeat_interleave(N_PER_PROMPT, 0), MAX_NEW)
        scores = reward_model(input_ids=samples).logits.squeeze(-1).numpy()
    print("scores", scores.dtype, scores[:6])

    # ---- phase 2: weighted fine-tuning
    ds = SampleSet(samples, scores)
    with tempfile.TemporaryDirectory() as out_dir:
        args = TrainingArguments(
            output_dir=out_dir,
            per_device_train_batch_size=8,
            num_train_epochs=1,
            learning_rate=1e-4,
            use_cpu=True,
            logging_steps=1,
            save_strategy="no",
            report_to="none",
            remove_unused_columns=False,
        )
        trainer = RWRTrainer(model=policy, args=args, train_dataset=ds, data_collator=collate)
        trainer.train()
    print("done")


if __name__ == "__main__":
    main()
