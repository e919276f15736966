import math

import numpy as np
import torch
from transformers import Wav2Vec2Config, Wav2Vec2FeatureExtractor, Wav2Vec2ForCTC

torch.manual_seed(0)

SR = 16000
CHARS = ["<pad>", "|", "d", "o", "r", "e", "m", "i"]
FREQ = {c: 220.0 * 2 ** (i / 4) for i, c in enumerate(CHARS[2:])}


def synth_utterance(word, rng):
    t = np.arange(int(0.15 * SR)) / SR
    notes = [0.3 * np.sin(2 * math.pi * FREQ[c] * t + rng.uniform(0, 6.28)) for c in word]
    wav = np.concatenate(notes + [np.zeros(int(0.05 * SR))])
    return (wav + 0.01 * rng.standard_normal(wav.shape)).astype(np.float32)


def make_dataset(n, rng):
    words = ["".join(rng.choice(CHARS[2:], size=rng.integers(2, 5))) for _ in range(n)]
    return [synth_utterance(w, rng) for w in words], words


def collate(extractor, wavs, words):
    batch = extractor(wavs, sampling_rate=SR, padding=True, return_tensors="pt", return_attention_mask=True)
    ids = [[CHARS.index(c) for c in w] for w in words]
    width = max(len(x) for x in ids)
    labels = torch.tensor([x + [-100] * (width - len(x)) for x in ids])
    return batch["input_values"], batch["attention_mask"], labels


def decode(pred_ids):
    out = []
    for seq in pred_ids.tolist():
        chars = [CHARS[k] for i, k in enumerate(seq) if k > 1 and (i == 0 or k != seq[i - 1])]
        out.append("".join(chars))
    return out


def main():
    rng = np.random.default_rng(0)
    config = Wav2Vec2Config(
        vocab_size=len(CHARS), hidden_size=64, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=128, conv_dim=(32, 32, 32), conv_stride=(5, 4, 4), conv_kernel=(10, 8, 4),
        num_conv_pos_embeddings=16, num_conv_pos_embedding_groups=4, feat_extract_norm="layer",
        do_stable_layer_norm=True, mask_time_prob=0.05, pad_token_id=0, ctc_loss_reduction="mean",
    )
    model = Wav2Vec2ForCTC(config).to(torch.bfloat16)
    model.freeze_feature_encoder()
    extractor = Wav2Vec2FeatureExtractor(feature_size=1, sampling_rate=SR, padding_value=0.0,
                                         do_normalize=True, return_attention_mask=True)
    train_wavs, train_words = make_dataset(64, rng)
    test_wavs, test_words = make_dataset(16, rng)
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=5e-4)

    for epoch in range(3):
        model.train()
        for i in range(0, len(train_wavs), 8):
            inputs, mask, labels = collate(extractor, train_wavs[i:i + 8], train_words[i:i + 8])
            loss = model(input_values=inputs, attention_mask=mask, labels=labels).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        inputs, mask, _ = collate(extractor, test_wavs, test_words)
        with torch.no_grad():
            hyps = decode(model(input_values=inputs, attention_mask=mask).logits.argmax(-1))
        exact = np.mean([h == r for h, r in zip(hyps, test_words)])
        print(f"epoch {epoch} ctc loss {loss.item():.3f} exact match {exact:.2f}")


if __name__ == "__main__":
    main()
