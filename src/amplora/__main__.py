import sys

from amplora.cli import main

sys.exit(main())
