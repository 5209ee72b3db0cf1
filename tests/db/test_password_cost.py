"""The product hashes passwords at bcrypt cost 10; only the tests' own variable lowers it, and never raises it."""

from __future__ import annotations

import bcrypt

from db.access import BCRYPT_ROUNDS, TEST_ROUNDS_ENV, bcrypt_rounds, check_password, hash_password


def cost(password_hash: str) -> int:
    return int(password_hash.split("$")[2])


def test_the_product_default_cost_is_10(monkeypatch):
    monkeypatch.delenv(TEST_ROUNDS_ENV, raising=False)
    assert BCRYPT_ROUNDS == 10
    password_hash = hash_password("correct horse battery")
    assert cost(password_hash) == 10
    assert check_password("correct horse battery", password_hash)


def test_the_suite_hashes_at_the_least_cost_bcrypt_allows(monkeypatch):
    assert cost(hash_password("correct horse battery")) == 4  # set in tests/conftest.py
    monkeypatch.setenv(TEST_ROUNDS_ENV, "2")
    assert bcrypt_rounds() == 4  # bcrypt refuses less than 4


def test_the_test_variable_cannot_raise_the_cost_or_break_hashing(monkeypatch):
    monkeypatch.setenv(TEST_ROUNDS_ENV, "14")
    assert bcrypt_rounds() == BCRYPT_ROUNDS
    monkeypatch.setenv(TEST_ROUNDS_ENV, "ten")
    assert bcrypt_rounds() == BCRYPT_ROUNDS


def test_a_hash_made_at_any_cost_checks_with_the_same_function(monkeypatch):
    old = bcrypt.hashpw(b"an older password", bcrypt.gensalt(rounds=5)).decode("ascii")
    assert check_password("an older password", old)
    assert not check_password("another password", old)
