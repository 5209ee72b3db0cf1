"""Builders the tests share: users, sentences, translations, tags, and paths of the repository."""
