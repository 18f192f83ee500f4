"""The decision's stages, one module each; `engine.core.pipeline` runs them in order."""
