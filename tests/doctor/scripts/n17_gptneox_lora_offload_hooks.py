"""LoRA fine-tuning of a tiny GPT-NeoX with PEFT, adapter saved as safetensors and
re-attached to a freshly loaded base; inference then runs with a hand-written per-layer
offload (parameters AND buffers parked in a host store, layers materialised by hooks)."""
import os
import tempfile

import torch
from peft import LoraConfig, PeftModel, get_peft_model
from safetensors.torch import load_file, save_file
from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

torch.manual_seed(0)

cfg = GPTNeoXConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                    intermediate_size=128, max_position_embeddings=64, rotary_pct=0.5,
                    bos_token_id=0, eos_token_id=1, tie_word_embeddings=False)


def batch(bs=16, seq=20):
    start = torch.randint(2, 100, (bs, 1))
    return 2 + (start + 3 * torch.arange(seq)) % 98  # "count by three" task


class LayerOffloader:
    """Parks a module's full state (params + persistent and non-persistent buffers) on the host."""

    def __init__(self, module):
        self.module = module
        self.store = {n: t.detach().clone() for n, t in module.named_parameters()}
        self.store.update({n: t.detach().clone() for n, t in module.named_buffers()})
        self.h1 = module.register_forward_pre_hook(self.onload)
        self.h2 = module.register_forward_hook(self.offload)

    def _set(self, name, value):
        *path, leaf = name.split(".")
        mod = self.module.get_submodule(".".join(path)) if path else self.module
        if leaf in mod._parameters:
            mod._parameters[leaf] = torch.nn.Parameter(value, requires_grad=False)
        else:
            mod._buffers[leaf] = value

    def onload(self, module, args):
        for n, v in self.store.items():
            self._set(n, v)

    def offload(self, module, args, output):
        for n, v in self.store.items():
            self._set(n, torch.empty_like(v, device="meta"))
        return output

    def remove(self):
        self.h1.remove()
        self.h2.remove()
        self.onload(self.module, None)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        base = GPTNeoXForCausalLM(cfg)
        base_path = os.path.join(tmp, "base.safetensors")
        save_file({k: v.contiguous() for k, v in base.state_dict().items()}, base_path)

        lora = LoraConfig(r=8, lora_alpha=16, lora_dropout=0.0,
                          target_modules=["query_key_value", "dense_h_to_4h", "dense_4h_to_h"])
        model = get_peft_model(base, lora)
        model.print_trainable_parameters()
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-3)
        model.train()
        for step in range(60):
            ids = batch()
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            opt.zero_grad()
            if step % 20 == 0:
                print(f"step {step} loss {loss.item():.4f}")
        adapter_dir = os.path.join(tmp, "adapter")
        model.save_pretrained(adapter_dir, safe_serialization=True)

        prompt = batch(bs=2, seq=5)
        model.eval()
        with torch.no_grad():
            ref = model.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt),
                                 max_new_tokens=8, do_sample=False, pad_token_id=1)

        # ---- fresh process-style reload ----
        fresh = GPTNeoXForCausalLM(cfg)
        fresh.load_state_dict(load_file(base_path))
        served = PeftModel.from_pretrained(fresh, adapter_dir).merge_and_unload().eval()

        offloaders = [LayerOffloader(layer) for layer in served.gpt_neox.layers]
        with torch.no_grad():
            out = served.generate(input_ids=prompt, attention_mask=torch.ones_like(prompt),
                                  max_new_tokens=8, do_sample=False, pad_token_id=1)
        for o in offloaders:
            o.remove()
        print("adapter model :", ref[:, 5:].tolist())
        print("merged+offload:", out[:, 5:].tolist())
        print("same tokens:", torch.equal(ref, out))


if __name__ == "__main__":
    main()
