"""pygls wiring only: handlers translate LSP messages into engine calls and back."""
