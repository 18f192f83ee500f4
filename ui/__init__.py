"""Entry points: the `thinkpath` command line, the REST service and the Gradio playground."""
