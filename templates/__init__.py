"""Reasoning-path templates: the data files and their validating loader."""
