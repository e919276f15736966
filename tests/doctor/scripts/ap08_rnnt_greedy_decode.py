import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 10
BLANK = 0
FEAT = 24


class Transducer(nn.Module):
    def __init__(self, d=64, blank=BLANK):
        super().__init__()
        self.blank = blank
        self.encoder = nn.LSTM(FEAT, d, batch_first=True)
        self.predictor_embed = nn.Embedding(VOCAB, d)
        self.predictor = nn.LSTM(d, d, batch_first=True)
        self.joint_enc = nn.Linear(d, d)
        self.joint_pred = nn.Linear(d, d)
        self.joint_out = nn.Linear(d, VOCAB)

    def encode(self, feats):
        return self.encoder(feats)[0]

    def predict(self, tokens, state=None):
        out, state = self.predictor(self.predictor_embed(tokens), state)
        return out, state

    def joint(self, enc, pred):
        return self.joint_out(torch.tanh(self.joint_enc(enc) + self.joint_pred(pred)))

    def forward(self, feats, targets):
        enc = self.encode(feats)
        sos = torch.full((targets.shape[0], 1), self.blank, dtype=torch.long)
        pred, _ = self.predict(torch.cat([sos, targets], dim=1))
        return self.joint(enc.unsqueeze(2), pred.unsqueeze(1))

    @torch.no_grad()
    def greedy_decode(self, feats, max_symbols=3):
        enc = self.encode(feats)
        B, T, _ = enc.shape
        last = enc.new_full((B, 1), self.blank)
        pred, state = self.predict(last)
        hyps = [[] for _ in range(B)]
        for t in range(T):
            for _ in range(max_symbols):
                logits = self.joint(enc[:, t:t + 1], pred)
                tok = logits.argmax(-1).squeeze(1)
                emit = tok != self.blank
                if not emit.any():
                    break
                for b in torch.nonzero(emit).flatten().tolist():
                    hyps[b].append(int(tok[b]))
                new_pred, new_state = self.predict(tok.unsqueeze(1), state)
                m = emit.view(B, 1, 1).to(pred.dtype)
                pred = m * new_pred + (1 - m) * pred
                state = tuple(emit.view(1, B, 1) * n + ~emit.view(1, B, 1) * o
                              for n, o in zip(new_state, state))
        return hyps


def rnnt_loss(logits, targets):
    log_probs = logits.float().log_softmax(-1)
    B, T, U1, _ = log_probs.shape
    blank_lp = log_probs[..., BLANK]
    emit_lp = log_probs[:, :, :-1].gather(-1, targets.view(B, 1, U1 - 1, 1).expand(B, T, U1 - 1, 1)).squeeze(-1)
    alpha = torch.full((B, T, U1), -1e30)
    alpha[:, 0, 0] = 0.0
    for t in range(T):
        for u in range(U1):
            if t == 0 and u == 0:
                continue
            cands = []
            if t > 0:
                cands.append(alpha[:, t - 1, u] + blank_lp[:, t - 1, u])
            if u > 0:
                cands.append(alpha[:, t, u - 1] + emit_lp[:, t, u - 1])
            alpha[:, t, u] = torch.logsumexp(torch.stack(cands), dim=0)
    return -(alpha[:, -1, -1] + blank_lp[:, -1, -1]).mean()


def edit_distance(a, b):
    d = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        prev, d[0] = d[0], i
        for j in range(1, len(b) + 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (a[i - 1] != b[j - 1]))
    return d[-1]


def make_batch(g, B=8, T=16, U=4):
    targets = torch.randint(1, VOCAB, (B, U), generator=g)
    feats = torch.randn(B, T, FEAT, generator=g) * 0.1
    for u in range(U):
        feats[:, 4 * u:4 * u + 3, :VOCAB] += F.one_hot(targets[:, u], VOCAB).float().unsqueeze(1)
    return feats, targets


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = Transducer()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(8):
        feats, targets = make_batch(g)
        loss = rnnt_loss(model(feats, targets), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} rnnt loss {loss.item():.4f}")
    model.eval()
    feats, targets = make_batch(g)
    hyps = model.greedy_decode(feats)
    errs = sum(edit_distance(h, r) for h, r in zip(hyps, targets.tolist()))
    print(f"token error rate {errs / targets.numel():.3f}")


if __name__ == "__main__":
    main()
