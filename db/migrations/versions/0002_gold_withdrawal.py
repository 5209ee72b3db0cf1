"""adjudications: withdrawn automatic gold (tags NULL) and single-annotator gold

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-25 10:00:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None

OLD_SOURCES = "source IN ('agreed', 'accepted', 'edited')"
NEW_SOURCES = "source IN ('agreed', 'single', 'accepted', 'edited', 'withdrawn')"
TAGS_UNLESS_WITHDRAWN = "(source = 'withdrawn') = (tags IS NULL)"


def upgrade() -> None:
    with op.batch_alter_table('adjudications', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_adjudications_source_known'), type_='check')
        batch_op.alter_column('tags', existing_type=sa.JSON(), nullable=True)
        batch_op.create_check_constraint(op.f('ck_adjudications_source_known'), NEW_SOURCES)
        batch_op.create_check_constraint(op.f('ck_adjudications_tags_unless_withdrawn'), TAGS_UNLESS_WITHDRAWN)


def downgrade() -> None:
    # Withdrawn and single-annotator decisions have no meaning under 0001; refuse rather than lose them.
    bind = op.get_bind()
    kept = bind.execute(sa.text("SELECT COUNT(*) FROM adjudications WHERE source IN ('single', 'withdrawn')")).scalar()
    if kept:
        raise RuntimeError(f"{kept} withdrawn or single-annotator gold decision(s) exist; cannot downgrade below 0002")
    with op.batch_alter_table('adjudications', schema=None) as batch_op:
        batch_op.drop_constraint(op.f('ck_adjudications_tags_unless_withdrawn'), type_='check')
        batch_op.drop_constraint(op.f('ck_adjudications_source_known'), type_='check')
        batch_op.alter_column('tags', existing_type=sa.JSON(), nullable=False)
        batch_op.create_check_constraint(op.f('ck_adjudications_source_known'), OLD_SOURCES)
