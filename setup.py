"""Packaging beyond pyproject.toml: validations/ and benchmarks/ stay at the repository's top
level (the layout asks for it) but install as theorylab.validations and theorylab.benchmarks, so
that no folder named validations/ elsewhere on sys.path can shadow them (issue 16)."""

from setuptools import find_packages, setup

setup(
    packages=find_packages(include=["theorylab", "theorylab.*"])
    + ["theorylab.validations", "theorylab.benchmarks"]
    # a paper's validation may be a package (validations/adaptive_sde/: claims, figures)
    + [f"theorylab.validations.{p}" for p in find_packages("validations")],
    package_dir={"theorylab.validations": "validations", "theorylab.benchmarks": "benchmarks"},
    # the HTML report's templates, stylesheet and vendored KaTeX (theorylab report --html)
    package_data={"theorylab.scaffold": ["templates/*.j2"],
                  "theorylab.report": ["templates/*.j2", "static/*.css", "static/*.js", "static/katex/*",
                                       "static/katex/fonts/*.woff2"]},
)
