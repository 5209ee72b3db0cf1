"""projects: the default typing scheme is "phonetic" (the translate editor now honours the setting)

Until now the translate page opened every translator in phonetic typing whatever the project's
``transliteration_scheme`` said (its column default was "itrans", which no admin had to choose). Now the
editor opens in the project's scheme, so a project still on that unchosen default moves to "phonetic":
its translators keep typing the way they did. The danda switch lives in ``projects.settings`` (on
unless turned off), so it needs no column.

Revision ID: 0010_phonetic_default_scheme
Revises: 0009_jobs
Create Date: 2026-11-27 23:20:00
"""
from alembic import op


revision = '0010_phonetic_default_scheme'
down_revision = '0009_jobs'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("UPDATE projects SET transliteration_scheme = 'phonetic' WHERE transliteration_scheme = 'itrans'")


def downgrade() -> None:
    op.execute("UPDATE projects SET transliteration_scheme = 'itrans' WHERE transliteration_scheme = 'phonetic'")
