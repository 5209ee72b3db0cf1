"""Database layer: SQLAlchemy models, engine setup, and thin services that call `corpus/`."""
