"""sessions in a cookie: single-use login codes, and the time a login session was last used (idle timeout)

Revision ID: 0005_login_codes
Revises: 0004
Create Date: 2026-11-24 11:00:00
"""
from alembic import op
import sqlalchemy as sa

revision = '0005_login_codes'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('login_sessions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('last_seen_at', sa.DateTime(), nullable=True))
    op.create_table(
        'login_codes',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('user_id', sa.Integer(), nullable=False),
        sa.Column('code_hash', sa.String(length=128), nullable=False),
        sa.Column('epoch', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.Column('expires_at', sa.DateTime(), nullable=False),
        sa.Column('used_at', sa.DateTime(), nullable=True),
        sa.ForeignKeyConstraint(['user_id'], ['users.id'], name=op.f('fk_login_codes_user_id_users')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_login_codes')),
        sa.UniqueConstraint('code_hash', name=op.f('uq_login_codes_code_hash')),
    )


def downgrade() -> None:
    op.drop_table('login_codes')
    with op.batch_alter_table('login_sessions', schema=None) as batch_op:
        batch_op.drop_column('last_seen_at')
