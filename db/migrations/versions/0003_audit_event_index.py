"""audit_events: index by action and time (every login attempt reads the recent failures)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 06:10:00
"""
from alembic import op

revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_audit_events_action_time', 'audit_events', ['action', 'created_at'])


def downgrade() -> None:
    op.drop_index('ix_audit_events_action_time', table_name='audit_events')
