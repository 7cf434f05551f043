"""ctxls: a language-server sidecar that builds context windows for coding agents."""

__version__ = "0.1.0"
