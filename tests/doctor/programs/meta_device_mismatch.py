"""A layer left on the meta device (a half-finished device_map / init_empty_weights load) meets CPU activations."""
import torch
from _tiny import batch, tiny_llama


def main():
    model = tiny_llama(torch.float32)
    model.model.layers[1].post_attention_layernorm.to("meta")
    ids = batch()
    model(input_ids=ids, labels=ids).loss.backward()


if __name__ == "__main__":
    main()
