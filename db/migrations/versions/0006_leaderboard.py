"""leaderboard_entries: the CRF baseline and outside models' scores on the test split

Revision ID: 0006_leaderboard
Revises: 0005_login_codes
Create Date: 2026-11-24 10:50:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0006_leaderboard'
down_revision = '0005_login_codes'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('leaderboard_entries',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('export_version', sa.String(length=80), nullable=False),
    sa.Column('f1', sa.Float(), nullable=True),
    sa.Column('scores', sa.JSON(), nullable=False),
    sa.Column('signature', sa.Text(), nullable=False),
    sa.Column('submitted_by', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint("kind IN ('baseline', 'submission')", name=op.f('ck_leaderboard_entries_kind_known')),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_leaderboard_entries_project_id_projects')),
    sa.ForeignKeyConstraint(['submitted_by'], ['users.id'], name=op.f('fk_leaderboard_entries_submitted_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_leaderboard_entries'))
    )
    op.create_index('ix_leaderboard_entries_project', 'leaderboard_entries', ['project_id', 'export_version'],
                    unique=False)


def downgrade() -> None:
    op.drop_index('ix_leaderboard_entries_project', table_name='leaderboard_entries')
    op.drop_table('leaderboard_entries')
