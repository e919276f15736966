import os
import sys

from amplora.cli import main, set_process_env

set_process_env()  # before torchrun's error handler below imports torch

UNDER_TORCHRUN = "TORCHELASTIC_RUN_ID" in os.environ

if UNDER_TORCHRUN:  # under torchrun: a crashing rank's traceback becomes its error report
    from torch.distributed.elastic.multiprocessing.errors import ErrorHandler, record

    class _AtomicErrorFile(ErrorHandler):
        """torchrun reads each failed rank's error file while it stops the others. Written in place, a rank stopped
        mid-write (one whose collective failed because a peer died) leaves an empty file, and torchrun dies on it
        with a JSONDecodeError instead of naming the rank that failed. Write a temp file, then rename."""

        def _write_error_file(self, file_path: str, error_msg: str) -> None:
            tmp = f"{file_path}.tmp{os.getpid()}"
            try:
                with open(tmp, "w") as fp:
                    fp.write(error_msg)
                os.replace(tmp, file_path)
            except OSError as e:
                print(f"amplora: could not write torchrun's error file {file_path}: {e}", file=sys.stderr)

    main = record(main, error_handler=_AtomicErrorFile())

code = main()
if UNDER_TORCHRUN:
    # A torchrun worker whose run is over (process group destroyed, files written and closed) leaves without
    # interpreter teardown. Teardown frees tensors and process-group objects that gloo's C++ threads can still
    # touch: seen once in CI as "terminate called without an active exception" and a SIGSEGV after a 2-rank
    # resume had written everything, which torchrun reports as a failed job.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
sys.exit(code)
