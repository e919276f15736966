"""The trainer: `amplora train`. The commands that use its adapter (generate, chat, merge, eval) are amplora.app.

run.py reads top to bottom: config -> dataset / encoding / batches -> model_loader (embedded_model, tiny_model) ->
amplora.apply -> distributed (FSDP2/DDP wiring) -> loop (chunked_loss, optim, checkpoint; generation for evals)
-> outcome (summary.json, report.html). See docs/train.md.
"""
