import math

import torch
import torch.nn.functional as F
from transformers import WhisperConfig, WhisperForConditionalGeneration

torch.manual_seed(0)

SR, N_FFT, HOP, N_MELS, N_FRAMES = 8000, 256, 80, 40, 160
SOT, EOT, PAD = 10, 11, 12
DIGIT_HZ = [300 + 110 * d for d in range(10)]


def log_mel_spectrogram(wav):
    window = torch.hann_window(N_FFT)
    power = torch.stft(wav, N_FFT, HOP, window=window, return_complex=True)[..., :-1].abs() ** 2
    m = torch.linspace(0, 2595 * math.log10(1 + SR / 2 / 700), N_MELS + 2)
    hz = 700 * (10 ** (m / 2595) - 1)
    f = torch.linspace(0, SR / 2, N_FFT // 2 + 1)
    fb = torch.minimum((f - hz[:-2, None]) / (hz[1:-1, None] - hz[:-2, None]),
                       (hz[2:, None] - f) / (hz[2:, None] - hz[1:-1, None])).clamp(min=0)
    log_spec = torch.clamp(fb @ power, min=1e-10).log10()
    log_spec = torch.maximum(log_spec, log_spec.amax(dim=(-2, -1), keepdim=True) - 8.0)
    return (log_spec + 4.0) / 4.0


def make_utterances(n, gen):
    seg = int(0.2 * SR)
    t = torch.arange(seg) / SR
    wavs, digits = [], []
    for _ in range(n):
        ds = torch.randint(0, 10, (int(torch.randint(2, 6, (1,), generator=gen)),), generator=gen).tolist()
        wav = torch.cat([0.5 * torch.sin(2 * math.pi * DIGIT_HZ[d] * t) * torch.hann_window(seg) for d in ds])
        wav = F.pad(wav, (0, N_FRAMES * HOP - wav.numel())) + 0.01 * torch.randn(N_FRAMES * HOP, generator=gen)
        wavs.append(wav)
        digits.append(ds)
    return log_mel_spectrogram(torch.stack(wavs)), digits


def make_labels(digits):
    width = max(len(d) for d in digits) + 1
    return torch.tensor([d + [EOT] + [-100] * (width - len(d) - 1) for d in digits])


def word_error_rate(hyps, refs):
    errors = 0
    for h, r in zip(hyps, refs):
        d = list(range(len(r) + 1))
        for i in range(1, len(h) + 1):
            prev, d[0] = d[0], i
            for j in range(1, len(r) + 1):
                prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (h[i - 1] != r[j - 1]))
        errors += d[-1]
    return errors / sum(len(r) for r in refs)


@torch.no_grad()
def greedy_decode(model, feats, max_len=8):
    enc = model.model.encoder(feats).last_hidden_state
    ids = torch.full((feats.size(0), 1), SOT)
    for _ in range(max_len):
        logits = model(encoder_outputs=(enc,), decoder_input_ids=ids).logits[:, -1]
        ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], 1)
    return [row[: row.index(EOT)] if EOT in row else row for row in ids[:, 1:].tolist()]


def main():
    gen = torch.Generator().manual_seed(0)
    config = WhisperConfig(
        vocab_size=13, num_mel_bins=N_MELS, d_model=64, encoder_layers=2, decoder_layers=2,
        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128, decoder_ffn_dim=128,
        max_source_positions=N_FRAMES // 2, max_target_positions=16, pad_token_id=PAD, bos_token_id=SOT,
        eos_token_id=EOT, decoder_start_token_id=SOT, suppress_tokens=None, begin_suppress_tokens=None,
    )
    model = WhisperForConditionalGeneration(config)
    train_x, train_d = make_utterances(128, gen)
    test_x, test_d = make_utterances(16, gen)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
    for epoch in range(5):
        model.train()
        for i in range(0, len(train_x), 16):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                out = model(input_features=train_x[i:i + 16], labels=make_labels(train_d[i:i + 16]))
            opt.zero_grad()
            out.loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
        model.eval()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            hyps = greedy_decode(model, test_x)
        print(f"epoch {epoch} loss {out.loss.item():.3f} WER {word_error_rate(hyps, test_d):.3f}")


if __name__ == "__main__":
    main()
