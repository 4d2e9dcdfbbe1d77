"""One module per paper: benchmarks run by ``theorylab bench PAPER`` (ratio against a reference)."""
