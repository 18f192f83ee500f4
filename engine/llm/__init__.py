"""LLM adapters (litellm, the in-process local model), wrappers and the scripted test double."""
