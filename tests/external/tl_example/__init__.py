"""tl_example: a package outside theorylab with papers registered by entry point (tests of issue 36)."""
