"""ThinkPath's decision engine: the facade, the pipeline, the ports and the composition root."""
