import sys

from corpus.cli import main

sys.exit(main())
