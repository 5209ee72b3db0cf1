"""How long a login attempt must wait after failures (OWASP's progressive delays, never a hard lock).

Two counts decide, both over the last ``WINDOW``: the failures of this account from this client (the
pair), and the failures of this account from anywhere. The pair's own failures delay it after a few
free tries, doubling each time. The account's count delays only clients that have failed on it
themselves: an attacker hammering an account from one place, or from many, never stops its owner
logging in from a client that has not failed, and a typo from the owner costs at most a few minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

WINDOW = timedelta(hours=1)
PAIR_FREE_FAILURES = 3
ACCOUNT_FREE_FAILURES = 10
PAIR_MAX_DELAY = timedelta(minutes=5)
ACCOUNT_MAX_DELAY = timedelta(minutes=2)


def progressive_delay(failures: int, free: int, cap: timedelta) -> timedelta:
    """0 for the first ``free`` failures, then 1 s, 2 s, 4 s ... up to ``cap``."""
    if failures < free:
        return timedelta(0)
    exponent = min(failures - free, 30)
    return min(timedelta(seconds=2 ** exponent), cap)


def login_wait(pair_failures: Sequence[datetime], account_failures: int, now: datetime) -> timedelta:
    """How long this client must still wait before trying this account again (0: it may try now).

    ``pair_failures``: times of this client's recent failures on the account; ``account_failures``:
    how many failures the account has had recently from every client together.
    """
    recent = [t for t in pair_failures if now - t <= WINDOW]
    if not recent:
        return timedelta(0)  # a client that has not failed here is never held back
    last = max(recent)
    delay = max(progressive_delay(len(recent), PAIR_FREE_FAILURES, PAIR_MAX_DELAY),
                progressive_delay(account_failures, ACCOUNT_FREE_FAILURES, ACCOUNT_MAX_DELAY))
    return max(last + delay - now, timedelta(0))
