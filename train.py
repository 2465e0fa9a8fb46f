"""Train a backgammon or long-nardi network from scratch by TD(lambda) self-play: ``python train.py ARGS``
is ``nardibot train ARGS``, the same parser and main (nardibot/cli/cmd_train.py, where the flags and the
run are described; ``--help`` lists the flags).
"""

import model.runtime  # noqa: F401  (first: sets numpy's BLAS threads before numpy loads)

# isort: split
import sys

from nardibot.cli.cmd_train import build_parser, main  # noqa: F401 - build_parser: the flags, for scripts

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], command="python train.py"))
