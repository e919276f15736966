import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

INNER_STEPS, INNER_LR = 5, 0.02
META_LR, META_ITERS = 0.1, 40
LOSS_SCALE = 2.0 ** 17


def make_model():
    return nn.Sequential(nn.Linear(1, 40), nn.ReLU(), nn.Linear(40, 40), nn.ReLU(), nn.Linear(40, 1))


def sine_task():
    amp = torch.empty(1).uniform_(0.1, 5.0)
    phase = torch.empty(1).uniform_(0, torch.pi)

    def sample(n):
        x = torch.empty(n, 1).uniform_(-5, 5)
        return x, amp * torch.sin(x + phase)
    return sample


def inner_train(learner, sample, steps):
    opt = torch.optim.SGD(learner.parameters(), lr=INNER_LR)
    for _ in range(steps):
        x, y = sample(10)
        pred = learner(x.half())
        loss = F.mse_loss(pred, y.half())
        opt.zero_grad()
        (loss * LOSS_SCALE).backward()
        for p in learner.parameters():
            p.grad.div_(LOSS_SCALE)
        opt.step()
    return loss


meta_model = make_model().half()

for it in range(META_ITERS):
    task = sine_task()
    learner = copy.deepcopy(meta_model)
    last = inner_train(learner, task, INNER_STEPS)
    with torch.no_grad():
        for p_meta, p_task in zip(meta_model.parameters(), learner.parameters()):
            p_meta.add_(META_LR * (p_task - p_meta))
    if it % 5 == 0:
        print(f"meta-iter {it:3d}  last inner loss {last.item():.4f}")

task = sine_task()
x_test, y_test = task(100)
learner = copy.deepcopy(meta_model)
inner_train(learner, task, 10)
with torch.no_grad():
    test_loss = F.mse_loss(learner(x_test.half()).float(), y_test)
print(f"test task mse after 10 adaptation steps: {test_loss.item():.4f}")
