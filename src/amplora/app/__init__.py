"""Using a trained adapter: `amplora generate`, `chat`, `merge`, `eval` (cli.py parses, commands.py runs).

The app reads what `amplora train` wrote and borrows the trainer's model loading, data reading and generation;
the trainer never imports the app.
"""
