"""`python -m agentmemd.daemon.cli` is the `agentmemd` command."""

import sys

from agentmemd.daemon.cli.main import main

sys.exit(main())
