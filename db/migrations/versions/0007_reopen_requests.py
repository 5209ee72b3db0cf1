"""reopen_requests: a worker asks a lead to reopen submitted work; the lead reopens or declines, with a reason

Revision ID: 0007_reopen_requests
Revises: 0006_leaderboard
Create Date: 2026-11-24 17:45:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0007_reopen_requests'
down_revision = '0006_leaderboard'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('reopen_requests',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=20), nullable=False),
    sa.Column('record_id', sa.Integer(), nullable=False),
    sa.Column('worker_id', sa.Integer(), nullable=False),
    sa.Column('request_reason', sa.Text(), nullable=True),
    sa.Column('requested_at', sa.DateTime(), nullable=True),
    sa.Column('state', sa.String(length=20), nullable=False),
    sa.Column('answered_by', sa.Integer(), nullable=True),
    sa.Column('answer_reason', sa.Text(), nullable=True),
    sa.Column('answered_at', sa.DateTime(), nullable=True),
    sa.Column('record_version', sa.Integer(), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint("kind IN ('translation', 'annotation')", name=op.f('ck_reopen_requests_kind_known')),
    sa.CheckConstraint("state IN ('pending', 'reopened', 'declined')", name=op.f('ck_reopen_requests_state_known')),
    sa.CheckConstraint("state = 'pending' OR (answered_by IS NOT NULL AND answer_reason IS NOT NULL "
                       "AND answered_at IS NOT NULL)", name=op.f('ck_reopen_requests_answered_with_reason')),
    sa.CheckConstraint("state <> 'pending' OR (request_reason IS NOT NULL AND answered_by IS NULL)",
                       name=op.f('ck_reopen_requests_pending_is_a_request')),
    sa.CheckConstraint("request_reason IS NOT NULL OR state = 'reopened'",
                       name=op.f('ck_reopen_requests_decline_answers_a_request')),
    sa.ForeignKeyConstraint(['worker_id'], ['users.id'], name=op.f('fk_reopen_requests_worker_id_users')),
    sa.ForeignKeyConstraint(['answered_by'], ['users.id'], name=op.f('fk_reopen_requests_answered_by_users')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reopen_requests'))
    )
    op.create_index('ix_reopen_requests_record', 'reopen_requests', ['kind', 'record_id', 'id'], unique=False)
    op.create_index('ix_reopen_requests_state', 'reopen_requests', ['state', 'id'], unique=False)


def downgrade() -> None:
    op.drop_index('ix_reopen_requests_state', table_name='reopen_requests')
    op.drop_index('ix_reopen_requests_record', table_name='reopen_requests')
    op.drop_table('reopen_requests')
