"""Suite-wide: the process settings the `amplora` command line uses, set before any test imports torch."""
from amplora.cli import set_process_env

set_process_env()
