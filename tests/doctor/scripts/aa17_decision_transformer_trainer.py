"""Decision Transformer (transformers) trained with the Trainer in bf16 on a NumPy reacher dataset, then
evaluated autoregressively in the environment, conditioning on a target return-to-go."""
import tempfile
import numpy as np
import torch
from datasets import Dataset
from transformers import DecisionTransformerConfig, DecisionTransformerModel, Trainer, TrainingArguments

torch.manual_seed(0)
rng = np.random.default_rng(0)
STATE, ACT, K, EP_LEN, RTG_SCALE = 4, 2, 8, 40, 10.0


class Reacher:
    def reset(self):
        self.p = rng.uniform(-1, 1, 2)
        self.g = rng.uniform(-1, 1, 2)
        return np.concatenate([self.p, self.g])

    def step(self, a):
        self.p = np.clip(self.p + 0.1 * np.clip(a, -1, 1), -1.5, 1.5)
        return np.concatenate([self.p, self.g]), -float(np.linalg.norm(self.p - self.g))


def episode(env, noise):
    s = env.reset()
    S, A, R = [], [], []
    for t in range(EP_LEN):
        a = np.clip(3 * (s[2:] - s[:2]) + noise * rng.normal(size=2), -1, 1)
        S.append(s); A.append(a)
        s, r = env.step(a)
        R.append(r)
    R = np.array(R)
    return np.array(S), np.array(A), np.cumsum(R[::-1])[::-1].copy()


env = Reacher()
episodes = [episode(env, noise) for noise in rng.uniform(0.0, 1.5, 100)]
windows = {"states": [], "actions": [], "returns_to_go": [], "timesteps": []}
for S, A, RTG in episodes:
    for start in range(0, EP_LEN - K + 1, 4):
        windows["states"].append(S[start:start + K].astype(np.float32))
        windows["actions"].append(A[start:start + K].astype(np.float32))
        windows["returns_to_go"].append((RTG[start:start + K, None] / RTG_SCALE).astype(np.float32))
        windows["timesteps"].append(np.arange(start, start + K, dtype=np.int64))
ds = Dataset.from_dict(windows).with_format("torch")


class DTForTraining(DecisionTransformerModel):
    def forward(self, states, actions, returns_to_go, timesteps, **kw):
        mask = torch.ones(states.shape[:2], dtype=torch.long)
        out = super().forward(states=states, actions=actions, rewards=None, returns_to_go=returns_to_go,
                              timesteps=timesteps, attention_mask=mask, return_dict=True)
        loss = torch.mean((out.action_preds.float() - actions.float()) ** 2)
        return {"loss": loss, "action_preds": out.action_preds}


config = DecisionTransformerConfig(state_dim=STATE, act_dim=ACT, hidden_size=64, n_layer=2, n_head=2, n_inner=128,
                                   max_ep_len=EP_LEN, n_positions=3 * K, bos_token_id=None, eos_token_id=None,
                                   attn_implementation="eager")
model = DTForTraining(config)

with tempfile.TemporaryDirectory() as out:
    args = TrainingArguments(output_dir=out, per_device_train_batch_size=32, max_steps=60, learning_rate=5e-4,
                             warmup_steps=5, bf16=True, use_cpu=True, logging_steps=20, report_to=[],
                             save_strategy="no", remove_unused_columns=False, dataloader_num_workers=0)
    trainer = Trainer(model=model, args=args, train_dataset=ds)
    result = trainer.train()
    assert np.isfinite(result.training_loss)

# autoregressive evaluation with a target return
model.eval()
s = env.reset()
target_rtg = -5.0
S, A, R, T = [s], [np.zeros(ACT)], [target_rtg / RTG_SCALE], [0]
total = 0.0
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    for t in range(EP_LEN):
        st = torch.as_tensor(np.array(S[-K:]), dtype=torch.float32)[None]
        ac = torch.as_tensor(np.array(A[-K:]), dtype=torch.float32)[None]
        rt = torch.as_tensor(np.array(R[-K:]), dtype=torch.float32)[None, :, None]
        ts = torch.as_tensor(np.array(T[-K:]), dtype=torch.long)[None]
        pred = DecisionTransformerModel.forward(model, states=st, actions=ac, rewards=None, returns_to_go=rt,
                                                timesteps=ts, attention_mask=torch.ones_like(ts), return_dict=True)
        a = pred.action_preds[0, -1].float().numpy()
        assert np.all(np.isfinite(a))
        A[-1] = a
        s, r = env.step(a)
        total += r
        S.append(s); A.append(np.zeros(ACT)); R.append(R[-1] - r / RTG_SCALE); T.append(min(t + 1, EP_LEN - 1))
print(f"eval return {total:.3f}")
