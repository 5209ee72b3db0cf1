import sys

from cli.commands import EXIT_INTERRUPTED, main  # the command line lives in cli/; this keeps `python -m corpus` working


def _end_by_sigint() -> None:
    """After Ctrl-C has been reported (one line, nothing written), end the way an uncaught Ctrl-C does: by the
    signal itself, so a shell sees 130 and a calling loop (``for f in *.xml; do python -m corpus ...``) stops.
    Returning 130 instead is not reliable under ``python -m``: CPython remembers a KeyboardInterrupt that passed
    through code compiled at run time (SQLAlchemy generates some on first use) and kills the process with SIGINT
    at exit anyway, so the status depended on where the interrupt landed."""
    import os
    import signal

    sys.stdout.flush()
    sys.stderr.flush()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGINT)


code = main()
if code == EXIT_INTERRUPTED:
    _end_by_sigint()
raise SystemExit(code)
