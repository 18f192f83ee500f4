"""Adapters behind the engine's ports: LLMs, stores, tools, tracking."""
