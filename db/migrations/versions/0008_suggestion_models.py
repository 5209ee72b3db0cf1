"""suggestion_models: the project's CRF for model suggestions (model file bytes, the gold count it saw)

Revision ID: 0008_suggestion_models
Revises: 0007_reopen_requests
Create Date: 2026-11-24 17:50:00
"""
from alembic import op
import sqlalchemy as sa


revision = '0008_suggestion_models'
down_revision = '0007_reopen_requests'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('suggestion_models',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('gold_count', sa.Integer(), nullable=False),
    sa.Column('signature', sa.Text(), nullable=False),
    sa.Column('model', sa.LargeBinary(), nullable=False),
    sa.Column('train_seconds', sa.Float(), nullable=False),
    sa.Column('trained_at', sa.DateTime(), nullable=False),
    sa.CheckConstraint('gold_count >= 0', name=op.f('ck_suggestion_models_gold_count_not_negative')),
    sa.ForeignKeyConstraint(['project_id'], ['projects.id'], name=op.f('fk_suggestion_models_project_id_projects')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_suggestion_models')),
    sa.UniqueConstraint('project_id', name=op.f('uq_suggestion_models_project_id'))
    )


def downgrade() -> None:
    op.drop_table('suggestion_models')
