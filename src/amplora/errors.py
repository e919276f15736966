"""User-facing errors: one line that says what is wrong and where. The CLI prints them and exits 2 (5 for a
diverged training run); docs/exit-codes.md lists every exit code."""


class AmploraError(Exception):
    """Bad input (a name, a file, a key, a module). The message is one line, complete on its own."""

    exit_code = 2


class TrainingDiverged(AmploraError):
    """Training went non-finite and cannot recover (see docs/train.md, "Divergence"). The run stops at `step`;
    `outcome` says which adapter, if any, was kept. Printed as `amplora: diverged at step N: ...`, exit 5."""

    exit_code = 5

    def __init__(self, step: int, reason: str, outcome: str = ""):
        self.step, self.reason, self.outcome = step, reason, outcome
        super().__init__(f"diverged at step {step}: {reason}" + (f"; {outcome}" if outcome else ""))
