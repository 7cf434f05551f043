"""Syntax: languages (from grammars/), text and positions, outlines, skeletons. No LSP here."""
