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
