"""typed_forms: Devanagari forms translators accepted for Roman words, per project

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 10:50:00
"""
from alembic import op
import sqlalchemy as sa

revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'typed_forms',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('roman', sa.String(length=60), nullable=False),
        sa.Column('devanagari', sa.String(length=120), nullable=False),
        sa.Column('uses', sa.Integer(), nullable=False),
        sa.Column('first_user_id', sa.Integer(), nullable=True),
        sa.Column('last_used_at', sa.DateTime(), nullable=False),
        sa.CheckConstraint('uses > 0', name=op.f('ck_typed_forms_uses_positive')),
        sa.ForeignKeyConstraint(['first_user_id'], ['users.id'], name=op.f('fk_typed_forms_first_user_id_users')),
        sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_typed_forms_project_id_projects')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_typed_forms')),
        sa.UniqueConstraint('project_id', 'roman', 'devanagari', name='uq_typed_forms_form'),
    )


def downgrade() -> None:
    op.drop_table('typed_forms')
