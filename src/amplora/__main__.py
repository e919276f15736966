import os
import sys

from amplora.cli import main

if "TORCHELASTIC_RUN_ID" in os.environ:  # under torchrun: a crashing rank's traceback becomes its error report
    from torch.distributed.elastic.multiprocessing.errors import record

    main = record(main)

sys.exit(main())
