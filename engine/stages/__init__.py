"""The decision's stages, one module each; `engine.pipeline` runs them in order."""
