"""The decision's stages, one module each; `engine.orchestration.pipeline` runs them in order."""
