"""Domain logic for the Hindi aspect-extraction corpus: import, tokens, BIO, metrics, export.

Nothing in this package imports Streamlit; the database layer lives in `db/`.
"""
