"""Thinking-seed retrieval: the search port and its backends (web, local hybrid index)."""
