"""The workspace index: which files exist, and what each one declares."""
