"""One module per paper: its claims as checks and its figures (discovered by paper id)."""
