"""Unit tests of theorylab.core.exact (exact rational linear algebra shared by cpwl and relu)."""

from fractions import Fraction as F

import pytest

from theorylab.core.exact import (dot, nullspace, primitive_int_row, rank, rref, solve, solve_consistent,
                                  to_fraction)


def test_rref_and_rank():
    M = [[F(1), F(2), F(3)], [F(2), F(4), F(6)], [F(1), F(0), F(1)]]
    R, piv = rref(M)
    assert piv == [0, 1] and rank(M) == 2
    assert R[0] == [1, 0, 1] and R[1] == [0, 1, 1]


def test_rref_restricted_columns_keeps_rhs_out_of_pivots():
    R, piv = rref([[F(0), F(0), F(1)]], n_cols=2)
    assert piv == [] and R == [[0, 0, 1]]


def test_nullspace_is_annihilated():
    M = [[F(1), F(2), F(3)], [F(0), F(1), F(1)]]
    for x in nullspace(M, 3):
        assert all(dot(row, x) == 0 for row in M)
    assert len(nullspace(M, 3)) == 1


def test_solve_square_and_singular():
    assert solve([[F(2), F(1)], [F(1), F(3)]], [F(3), F(5)]) == [F(4, 5), F(7, 5)]
    with pytest.raises(ValueError, match="singular"):
        solve([[F(1), F(2)], [F(2), F(4)]], [F(1), F(2)])


def test_solve_consistent_rectangular():
    M = [[F(1), F(1), F(0)], [F(0), F(1), F(1)]]
    y = solve_consistent(M, [F(2), F(3)])
    assert [dot(r, y) for r in M] == [2, 3]
    assert solve_consistent([[F(1), F(1)], [F(2), F(2)]], [F(1), F(3)]) is None


def test_primitive_rows_and_fractions():
    assert primitive_int_row([F(1, 2), F(-3, 4), 0]) == [2, -3, 0]
    assert primitive_int_row([0, 0]) == [0, 0]
    assert to_fraction(0.5) == F(1, 2)
    with pytest.raises(TypeError, match="number"):
        to_fraction(True)


def test_random_matrices_consistent_rank_nullity_and_solutions():
    import random
    rng = random.Random(3)
    for _ in range(60):
        m, n = rng.randint(1, 6), rng.randint(1, 7)
        M = [[F(rng.randint(-4, 4), rng.randint(1, 4)) if rng.random() < 0.7 else F(0) for _ in range(n)]
             for _ in range(m)]
        M.append([a + b for a, b in zip(M[0], M[-1])])          # force a dependent row
        R, piv = rref(M)
        assert len(piv) == rank(M) and rank(M) + len(nullspace(M, n)) == n
        assert all(R[i][c] == (i == k) for k, c in enumerate(piv) for i in range(len(R)))
        x0 = [F(rng.randint(-3, 3)) for _ in range(n)]
        b = [dot(r, x0) for r in M]
        y = solve_consistent(M, b)
        assert [dot(r, y) for r in M] == b


def test_inputs_are_converted_exactly_and_outputs_are_fractions():
    import flint
    import numpy as np
    assert to_fraction("0.1") == F(1, 10) and to_fraction("3/7") == F(3, 7)
    assert to_fraction(0.1) == F(3602879701896397, 36028797018963968)     # the float's binary value
    assert to_fraction(flint.fmpq(2, 6)) == F(1, 3) and to_fraction(np.int64(5)) == 5
    R, _ = rref([[2, "1/2"], [np.int64(1), 0.25]])
    assert all(type(v) is F for row in R for v in row)
    assert solve([[flint.fmpz(2)]], [flint.fmpq(1, 3)]) == [F(1, 6)]
    for bad in (float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite"):
            to_fraction(bad)
    with pytest.raises(ValueError, match="rational"):
        to_fraction("abc")


def test_shape_errors_are_named():
    with pytest.raises(ValueError, match="rectangular"):
        rref([[F(1), F(2)], [F(1)]])
    with pytest.raises(ValueError, match="square"):
        solve([[F(1), F(2)]], [F(1)])
    with pytest.raises(ValueError, match="rhs"):
        solve_consistent([[F(1)]], [F(1), F(2)])
