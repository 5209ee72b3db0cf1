"""jobs: background work in the database (retrain, review suspects, the Dataset check's and the leaderboard's
CRF baselines): state, lease, attempts, result or error; at most one queued-or-running job per project and kind

Revision ID: 0009_jobs
Revises: 0008_suggestion_models
Create Date: 2026-11-27 23:10:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0009_jobs'
down_revision = '0008_suggestion_models'
branch_labels = None
depends_on = None

ACTIVE = "state IN ('queued', 'running')"


def upgrade() -> None:
    op.create_table('jobs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=64), nullable=False),
    sa.Column('arguments', sa.JSON(), nullable=False),
    sa.Column('state', sa.String(length=16), nullable=False),
    sa.Column('lease_owner', sa.Text(), nullable=True),
    sa.Column('lease_expires', sa.DateTime(), nullable=True),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('result', sa.JSON(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.Column('started_at', sa.DateTime(), nullable=True),
    sa.Column('finished_at', sa.DateTime(), nullable=True),
    sa.CheckConstraint("state IN ('queued', 'running', 'done', 'failed')", name=op.f('ck_jobs_state_known')),
    sa.CheckConstraint('attempts >= 0', name=op.f('ck_jobs_attempts_not_negative')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_jobs'))
    )
    op.create_index('uq_jobs_active', 'jobs', ['project_id', 'kind'], unique=True,
                    postgresql_where=sa.text(ACTIVE), sqlite_where=sa.text(ACTIVE))
    op.create_index('ix_jobs_project_kind', 'jobs', ['project_id', 'kind', 'id'])
    op.create_index('ix_jobs_state', 'jobs', ['state'])


def downgrade() -> None:
    op.drop_index('ix_jobs_state', table_name='jobs')
    op.drop_index('ix_jobs_project_kind', table_name='jobs')
    op.drop_index('uq_jobs_active', table_name='jobs')
    op.drop_table('jobs')
