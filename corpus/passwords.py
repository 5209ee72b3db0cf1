"""Which passwords and usernames an account may have (pure rules; hashing lives in db.auth).

The common-password list is Django's (``corpus/data/common-passwords.txt.gz``, 19,640 lower-cased
passwords compiled by Royce Williams; BSD-3-Clause, licence beside it): a password on it, in any
case, is refused whatever its length.
"""

from __future__ import annotations

import gzip
import unicodedata
from functools import cache
from pathlib import Path

MIN_PASSWORD_LENGTH = 10
# bcrypt reads only the first 72 bytes; a longer password would be silently cut, so it is refused.
MAX_PASSWORD_BYTES = 72
MAX_USERNAME_LENGTH = 80
COMMON_PASSWORDS = Path(__file__).resolve().parent / "data" / "common-passwords.txt.gz"


@cache
def common_passwords() -> frozenset[str]:
    with gzip.open(COMMON_PASSWORDS, "rt", encoding="utf-8") as f:
        return frozenset(line.strip() for line in f if line.strip())


def has_control_characters(text: str) -> bool:
    """NUL, newlines and other control or format characters (Unicode category C*) that no name needs."""
    return any(unicodedata.category(c).startswith("C") for c in text)


def password_problems(password: str, username: str | None = None) -> list[str]:
    """Why a new password is refused ([] when it is acceptable)."""
    problems = []
    if len(password) < MIN_PASSWORD_LENGTH:
        problems.append(f"a password needs at least {MIN_PASSWORD_LENGTH} characters")
    if len(password.encode("utf-8")) > MAX_PASSWORD_BYTES:
        problems.append(f"a password may have at most {MAX_PASSWORD_BYTES} bytes (72 Latin letters, "
                        "about 24 Devanagari characters)")
    if "\x00" in password:
        problems.append("a password cannot contain a NUL character")
    lowered = password.lower()
    if lowered in common_passwords():
        problems.append("this password is on a list of commonly used passwords; choose another")
    elif username and lowered == username.strip().lower():
        problems.append("a password cannot be the username")
    return problems


def username_problems(username: str) -> list[str]:
    name = username.strip()
    if not name or len(name) > MAX_USERNAME_LENGTH:
        return [f"a username needs 1-{MAX_USERNAME_LENGTH} characters"]
    if has_control_characters(name):
        return ["a username cannot contain control characters (such as NUL or a line break)"]
    if any(c.isspace() for c in name):
        return ["a username cannot contain spaces"]
    return []
