"""translations, annotations, annotation_assignments: indexes for the figures' reads (issue #32)

The gold reader looks up who is assigned to a translation (``annotation_assignments`` had no index
starting with ``translation_id``: it scanned the table). The metrics snapshot and the dashboard's save
stamp read each big table's count, summed versions and newest update, and the rows updated since the
last read: with ``(updated_at, version)`` the first is a scan of a small index instead of the table and
its texts, the second a range of it.

Revision ID: 0011_read_indexes
Revises: 0010_phonetic_default_scheme
Create Date: 2026-11-28 05:30:00
"""
from alembic import op


revision = '0011_read_indexes'
down_revision = '0010_phonetic_default_scheme'
branch_labels = None
depends_on = None

INDEXES = (
    ("ix_annotation_assignments_translation", "annotation_assignments", ["translation_id", "status", "user_id"]),
    ("ix_annotation_assignments_updated", "annotation_assignments", ["updated_at"]),
    ("ix_translations_updated", "translations", ["updated_at", "version"]),
    ("ix_annotations_updated", "annotations", ["updated_at", "version"]),
)


def upgrade() -> None:
    for name, table, columns in INDEXES:
        op.create_index(name, table, columns)


def downgrade() -> None:
    for name, table, _ in reversed(INDEXES):
        op.drop_index(name, table_name=table)
