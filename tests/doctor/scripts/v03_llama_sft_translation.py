import math
import os
import random
import tempfile

import torch
from datasets import Dataset
from peft import LoraConfig, get_peft_model
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from trl import SFTConfig, SFTTrainer

random.seed(3)
torch.manual_seed(3)
workdir = tempfile.mkdtemp()

WORDS = ("translate to french : hello world good morning thank you very much cat dog house "
         "bonjour le monde bon matin merci beaucoup chat chien maison").split()
vocab = {"<pad>": 0, "<unk>": 1, "</s>": 2, "<s>": 3}
for w in WORDS:
    vocab.setdefault(w, len(vocab))
backend = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
backend.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=backend, pad_token="<pad>", unk_token="<unk>",
                                    eos_token="</s>", bos_token="<s>")

en = "hello world good morning thank you very much cat dog house".split()
fr = "bonjour le monde bon matin merci beaucoup chat chien maison".split()
samples = []
for _ in range(80):
    k = random.randint(2, 5)
    idx = random.sample(range(len(en)), k)
    samples.append({"prompt": "translate to french : " + " ".join(en[i] for i in idx) + " :",
                    "completion": " " + " ".join(fr[min(i, len(fr) - 1)] for i in idx)})
ds = Dataset.from_list(samples).train_test_split(test_size=16, seed=0)

config = LlamaConfig(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
                     num_key_value_heads=2, vocab_size=48, max_position_embeddings=128,
                     pad_token_id=0, bos_token_id=3, eos_token_id=2)
ckpt = os.path.join(workdir, "llama-tiny")
LlamaForCausalLM(config).save_pretrained(ckpt)

model = LlamaForCausalLM.from_pretrained(ckpt, dtype=torch.float16)
lora = LoraConfig(r=16, lora_alpha=32, lora_dropout=0.0, task_type="CAUSAL_LM",
                  target_modules=["q_proj", "v_proj", "up_proj", "down_proj"])
model = get_peft_model(model, lora, autocast_adapter_dtype=False)
model.print_trainable_parameters()

args = SFTConfig(
    output_dir=os.path.join(workdir, "out"),
    per_device_train_batch_size=8,
    per_device_eval_batch_size=8,
    optim="adamw_torch",
    learning_rate=1e-3,
    max_steps=8,
    logging_steps=2,
    max_length=48,
    completion_only_loss=True,
    bf16=False,
    use_cpu=True,
    report_to=[],
    save_strategy="no",
)
trainer = SFTTrainer(model=model, args=args, train_dataset=ds["train"], eval_dataset=ds["test"],
                     processing_class=tokenizer)
trainer.train()
metrics = trainer.evaluate()
print(f"eval loss: {metrics['eval_loss']:.4f}  ppl: {math.exp(min(metrics['eval_loss'], 50)):.2f}")

model.eval()
prompt = tokenizer("translate to french : good morning :", return_tensors="pt")
with torch.no_grad():
    logits = model(**prompt).logits
print("next-token logit range:", logits[0, -1].min().item(), logits[0, -1].max().item())
