"""The decision core: the facade, the arm book, the pipeline, records and ports."""
