"""User-facing errors: one line that says what is wrong and where. The CLI prints them and exits 2."""


class AmploraError(Exception):
    """Bad input (a name, a file, a key, a module). The message is one line, complete on its own."""

    exit_code = 2
