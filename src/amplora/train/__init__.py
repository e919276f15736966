"""The trainer: `amplora train` and its sibling commands (`generate`, `chat`, `merge`, `eval`).

config -> dataset / encoding / batches -> model_loader (embedded_model, tiny_model) -> amplora.apply ->
loop (chunked_loss, optim, checkpoint) with generation for evals -> report. See docs/train.md.
"""
