"""A paper whose id collides with a built-in one (registered only in the collision test)."""

from theorylab.claims import Paper

PAPER = Paper(id="rr_sgd", title="A clash", authors="A. Tester", venue="tests")
