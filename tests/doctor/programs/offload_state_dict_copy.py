"""A model loaded with a device_map that offloads a layer to disk: accelerate keeps that layer's weights on meta
and loads them only inside its forward. Copying the state dict (to save it by hand) meets the meta placeholders:
"Cannot copy out of meta tensor; no data!"."""
import tempfile

import torch
from _tiny import batch, tiny_llama
from transformers import AutoModelForCausalLM

MAP = {"model.embed_tokens": "cpu", "model.rotary_emb": "cpu", "model.layers.0": "cpu", "model.layers.1": "disk",
       "model.norm": "cpu", "lm_head": "cpu"}


def offloaded(folder: str):
    tiny_llama(torch.float32).save_pretrained(folder)
    return AutoModelForCausalLM.from_pretrained(folder, device_map=MAP, offload_folder=f"{folder}/offload")


def main():
    with tempfile.TemporaryDirectory() as folder:
        model = offloaded(folder)
        model(input_ids=batch())  # the forward works: the hooks bring the weights in
        copy = {k: v.to("cpu", copy=True) for k, v in model.state_dict().items()}
        torch.save(copy, f"{folder}/weights.pt")


if __name__ == "__main__":
    main()
