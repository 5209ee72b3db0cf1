"""Streamlit helpers the pages share: the engine and user, widgets (span editor, Hindi input), routes."""
