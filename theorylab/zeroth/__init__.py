"""Derivative-free optimisation: function-value oracles, two-point gradient estimators with
pluggable perturbation laws, query allocators, Stochastic Three Points, and perturbed gradient
descent with an inexact oracle (issue 17: papers dap, stp, flops, quantum_sosp).

Modules (import from them directly):

- ``theorylab.zeroth.oracles``    test-function zoo, value noise, query counter
- ``theorylab.zeroth.estimators`` two-point / forward-difference estimators, perturbation laws (dap)
- ``theorylab.zeroth.stp``        Stochastic Three Points (stp)
- ``theorylab.zeroth.allocation`` query budgets and allocators (flops)
- ``theorylab.zeroth.saddle``     perturbed gradient descent with an inexact oracle (quantum_sosp)
"""
