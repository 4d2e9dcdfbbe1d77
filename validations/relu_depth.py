"""relu_depth — Averkov, Hojny, Merkert (ICLR 2025), "On the Expressiveness of Rational ReLU
Neural Networks With Bounded Depth", arXiv:2502.06283.

What was read (abstract; an excerpt of the introduction): within ReLU networks with decimal
weights F_n = max(0, x_1..x_n) needs >= ceil(log3(n+1)) hidden layers; with N-ary weights
Omega(ln n / ln ln N) (Thm 4, "a partial confirmation of Conjecture 1 for rational weights");
HBDS's conjecture ceil(log2(n+1)) holds for integer weights (Haase, Hertrich, Loho, ICLR'23).
What is a hypothesis here (spec §3, [INFERRED]; the theorem bodies could not be read): the
invariant "faces of dimension >= p^k of the Newton polytopes of a k-hidden-layer N-ary network
have normalized volume divisible by p (p prime, p not dividing N)", its proof via Lucas'
theorem, and p(N) = smallest prime not dividing N.  The checks below test these statements
directly, so a wrong hypothesis shows up as *not reproduced*.
"""

from __future__ import annotations

from fractions import Fraction
from math import log

import numpy as np
import pandas as pd

from theorylab.core import Bound, Identity, Paper, claim, figure
from theorylab.core.plotting import subplots, theory_line
from theorylab.core.seeding import as_generator
from theorylab.core.sweep import sweep
from theorylab.relu import lower_bound_vs_N as _lower_bound_table
from theorylab.relu.network import rational_numerators
from theorylab.relu import (F_n, binomials_vanish_mod_p, bound_table, certify_max, face_volumes, is_power_of,
                            max_network, minkowski_sum, conv_union, newton_polytopes,
                            normalized_volume, p_adic_valuation, point, simplex, smallest_prime_not_dividing,
                            upper_bound_tournament, volume_invariant_table)
from theorylab.core.experiment import experiment

PAPER = Paper(
    id="relu_depth",
    title="On the Expressiveness of Rational ReLU Neural Networks With Bounded Depth",
    authors="Gennadiy Averkov, Christopher Hojny, Maximilian Merkert",
    arxiv="2502.06283",
)


# --------------------------------------------------------------------------- helpers

def _test_points(n, n_points, seed):
    """Random integers, random rationals, and points with ties (equal coordinates, zeros)."""
    rng = as_generator(seed)
    ints = rng.integers(-60, 61, size=(n_points, n)).astype(object)
    rats = np.array([[Fraction(int(rng.integers(-99, 100)), int(rng.integers(1, 11))) for _ in range(n)]
                     for _ in range(n_points)], dtype=object)
    ties = rng.integers(-3, 4, size=(n_points, n)).astype(object)      # many equal values and zeros
    return np.vstack([ints, rats, ties])


def _construction_row(n, n_points, certify, tropical, seed):
    net = max_network(n)
    X = _test_points(n, n_points, seed)
    num, S0 = rational_numerators(X)
    Y, S = net.evaluate_numerators(num, S0)                 # outputs Y / S, exact
    target = np.array([max(0, *row) for row in num], dtype=object) * (S // S0)   # F_n(X) * S
    mismatches = int(np.sum(Y[:, 0] != target))
    weights_ok = net.weight_values() <= {Fraction(-1), Fraction(0), Fraction(1)}
    depth_ok = net.depth == upper_bound_tournament(n)
    row = {"n": n, "hidden_layers": net.depth, "ceil_log2_n1": upper_bound_tournament(n), "width": net.width,
           "weights_in_m101": weights_ok, "points": len(X), "eval_mismatches": mismatches,
           "regions": np.nan, "region_certificate": np.nan, "tropical_certificate": np.nan}
    ok = weights_ok and depth_ok and mismatches == 0
    if certify:
        cert = certify_max(net)
        row["regions"] = cert["n_regions"]
        row["region_certificate"] = float(cert["certified"])
        ok = ok and cert["certified"]
    if tropical:
        (P, Q), = newton_polytopes(net)
        same = P == Q + simplex(n)                          # f = h_P - h_Q = h_Delta  <=>  P = Q + Delta_n
        row["tropical_certificate"] = float(same)
        ok = ok and same
    row["ok"] = ok
    return row


def construction_point(*, n, n_points, certify, tropical, seed):
    """One sweep point of fn_construction_exact: the checks at one n (cached/resumable per n)."""
    return _construction_row(n, n_points, certify, tropical, seed)


# --------------------------------------------------------------------------- claims

@claim(PAPER, "fn_construction_exact", source="paper", ref="Sec. 1, abstract",
       citation="Sec. 1 (upper bound ceil(log2(n+1)), HBDS NeurIPS'21); abstract",
       statement="The balanced max-tournament represents F_n = max(0, x_1..x_n) exactly for n = 1..32 with "
                 "ceil(log2(n+1)) hidden layers and weights in {-1, 0, 1}",
       scales={"ci": dict(n_max=32, n_points=100, n_certify=4, n_tropical=3),
               "full": dict(n_max=32, n_points=1000, n_certify=8, n_tropical=6)})
def fn_construction_exact(*, n_max, n_points, n_certify, n_tropical, seed):
    points = [dict(n=n, n_points=n_points, certify=n <= n_certify, tropical=n <= n_tropical)
              for n in range(1, n_max + 1)]
    table = sweep(construction_point, points, seed=seed, progress=False, desc="F_n construction")
    table = table.drop(columns=["n_points", "certify", "tropical"])
    failures = int((~table["ok"]).sum())
    note = (f"exact rational evaluation at {3 * n_points} points per n (random integers, random rationals, ties) "
            f"for n=1..{n_max}; region-by-region exact certificate (all {int(table['regions'].sum())} "
            f"activation regions, Farkas certificates) for n<={n_certify}; tropical certificate "
            f"P = Q + Delta_n of the Newton polytopes for n<={n_tropical}")
    return Identity(discrepancy=failures, instances=len(table), what="failed n", data=table, note=note)


def invariant_point(*, n, widths, N, p, n_networks, seed):
    """One sweep point of the volume invariant: the faces of ``n_networks`` random networks of one config."""
    t = volume_invariant_table(n=n, widths=list(widths), N=N, p=p, n_networks=n_networks, seed=seed)
    t.insert(0, "config", f"n={n} widths={list(widths)} N={N} p={p}")
    t.insert(1, "N", N)
    t.insert(2, "p", p)
    t.insert(3, "k", len(widths))
    return t


@experiment(PAPER)
def _invariant(configs, seed):
    """The invariant table over ``configs`` (one sweep point per config, cached/resumable; memoised in-process
    because volume_invariant and the figure invariant_by_face_dimension share it)."""
    points = [dict(n=n, widths=list(widths), N=N, p=p, n_networks=nets) for n, widths, N, p, nets in configs]
    table = sweep(invariant_point, points, seed=seed, progress=False, desc="volume invariant")
    return table.drop(columns=["n", "widths", "n_networks"], errors="ignore")


def _summary(table):
    g = table.groupby("config", sort=False)
    return pd.DataFrame({
        "N": g["N"].first(), "p": g["p"].first(), "k": g["k"].first(), "threshold": g["threshold"].first(),
        "faces_above": g["above"].sum(),
        "above_not_divisible": g.apply(lambda t: int((t["above"] & ~t["divisible"]).sum()), include_groups=False),
        "faces_below": g["above"].apply(lambda s: int((~s).sum())),
        "below_not_divisible": g.apply(lambda t: int((~t["above"] & ~t["divisible"]).sum()), include_groups=False),
    }).reset_index()


INVARIANT_CI = ((3, (7,), 1, 2, 3), (3, (7,), 10, 3, 3), (3, (7,), 2, 3, 3), (4, (8,), 10, 3, 2),
                (4, (4, 2), 1, 2, 2), (4, (4, 2), 3, 2, 2))
INVARIANT_FULL = ((3, (7,), 1, 2, 30), (3, (7,), 10, 3, 30), (3, (7,), 2, 3, 30), (4, (8,), 10, 3, 15),
                  (4, (8,), 2, 3, 15), (5, (10,), 6, 5, 6), (4, (4, 2), 1, 2, 12), (4, (4, 2), 3, 2, 12),
                  (4, (5, 3), 5, 2, 6))


@claim(PAPER, "volume_invariant", source="derived", ref="Thm 4",
       citation="Thm 4 (proof idea, spec §3 [INFERRED]); HHL ICLR'23 parity lemma for p=2",
       statement="For random k-hidden-layer networks with N-ary weights and a prime p not dividing N, every face "
                 "of dimension >= p^k of their Newton polytopes has normalized volume divisible by p",
       scales={"ci": dict(configs=INVARIANT_CI), "full": dict(configs=INVARIANT_FULL)})
def volume_invariant(*, configs, seed):
    configs = tuple((n, tuple(w), N, p, m) for n, w, N, p, m in configs)
    table = _invariant(configs, seed)
    assert all(N % p for _, _, N, p, _ in configs)
    above = table[table["above"]]
    violations = int((~above["divisible"]).sum())
    s = _summary(table)
    below_nd = int(s["below_not_divisible"].sum())
    note = (f"{len(above)} faces of dimension >= p^k tested over {len(configs)} configurations; "
            f"{below_nd} of {int(s['faces_below'].sum())} faces below the threshold are NOT divisible by p "
            f"(so the threshold matters and the test is not vacuous)")
    return Identity(discrepancy=violations, instances=len(above), what="faces >= p^k with v_p < 1",
                    data=s, note=note)


@claim(PAPER, "dyadic_parity_fails", source="paper", ref="Sec. 1",
       citation="Sec. 1 ('for p = 3 this covers binary as well as decimal fractions'); spec §3(b)4",
       statement="With dyadic weights the parity argument (p = 2) breaks: the zonotope of (1/2, 0) and (0, 1) has "
                 "normalized area 1, and random dyadic networks have faces of dimension >= 2^k with odd volume",
       scales={"ci": dict(n=3, widths=(7,), n_networks=3), "full": dict(n=3, widths=(7,), n_networks=30)})
def dyadic_parity_fails(*, n, widths, n_networks, seed):
    Z = minkowski_sum(conv_union(point([0, 0]), point([Fraction(1, 2), 0])), conv_union(point([0, 0]), point([0, 1])))
    vol_Z = normalized_volume(Z.num, Z.den)
    t = volume_invariant_table(n=n, widths=list(widths), N=2, p=2, n_networks=n_networks, seed=seed)
    t3 = volume_invariant_table(n=n, widths=list(widths), N=2, p=3, n_networks=n_networks, seed=seed)
    above = t[t["above"]]
    odd = int((~above["divisible"]).sum()) + int(p_adic_valuation(vol_Z, 2) < 1)
    above3 = t3[t3["above"]]
    data = pd.DataFrame([{"example": "zonotope (1/2,0),(0,1)", "normalized_area": str(vol_Z),
                          "v_2": p_adic_valuation(vol_Z, 2), "v_3": p_adic_valuation(vol_Z, 3)},
                         {"example": f"random dyadic nets, faces dim>=2 (p=2)", "faces": len(above),
                          "odd_faces": int((~above["divisible"]).sum())},
                         {"example": f"same nets, faces dim>=3 (p=3)", "faces": len(above3),
                          "not_div_by_3": int((~above3["divisible"]).sum())}])
    note = (f"dyadic zonotope normalized area {vol_Z}; {int((~above['divisible']).sum())}/{len(above)} faces of dim "
            f">= 2 of random dyadic networks have odd volume; with p = 3: {int((~above3['divisible']).sum())}"
            f"/{len(above3)} faces of dim >= 3 not divisible by 3")
    return Bound(value=odd, bound=1, side=">=", data=data, note=note)


@claim(PAPER, "simplex_unit_volume", source="third-party", ref="Sec. 3",
       citation="HHL ICLR'23 Sec. 3 / AHM Sec. 3: Newton polytope of F_n is Delta_n",
       statement="Delta_n = conv(0, e_1..e_n) and all its faces have normalized volume 1 (not divisible by any p), "
                 "so F_n is not representable with k hidden layers when n >= p^k",
       scales={"ci": dict(n_max=6), "full": dict(n_max=8)})
def simplex_unit_volume(*, n_max, seed):
    rows = []
    for n in range(1, n_max + 1):
        vols = face_volumes(simplex(n), 1)
        rows.append({"n": n, "faces": len(vols), "max_abs_vol_minus_1": float(max(abs(v - 1) for _, v in vols))})
    table = pd.DataFrame(rows)
    return Identity(discrepancy=float(table["max_abs_vol_minus_1"].max()), instances=int(table["faces"].sum()),
                    what="Vol(face) - 1", data=table)


@claim(PAPER, "lucas_threshold", source="derived", ref="",
       citation="Lucas' theorem, as used for the threshold p^k (spec §3 [INFERRED])",
       statement="C(d, i) = 0 mod p for all 0 < i < d  iff  d is a power of p",
       scales={"ci": dict(primes=(2, 3, 5, 7), d_max=200), "full": dict(primes=(2, 3, 5, 7, 11, 13), d_max=600)})
def lucas_threshold(*, primes, d_max, seed):
    rows = []
    for p in primes:
        for d in range(2, d_max + 1):
            lhs, rhs = binomials_vanish_mod_p(d, p), is_power_of(d, p)
            if lhs or rhs:
                rows.append({"p": p, "d": d, "binomials_vanish": lhs, "power_of_p": rhs})
    table = pd.DataFrame(rows)
    mismatches = int((table["binomials_vanish"] != table["power_of_p"]).sum())
    return Identity(discrepancy=mismatches, instances=len(primes) * (d_max - 1), what="mismatches", data=table)


P_OF_N_SPEC = {2: 3, 10: 3, 16: 3, 1000: 3, 6: 5, 30: 7, 210: 11}


@claim(PAPER, "bound_table", source="third-party", ref="Thm 4",
       citation="Abstract; Thm 4 (N-ary); HHL ICLR'23 (integer); Bakaev et al. arXiv:2505.14338 (upper)",
       statement="Lower bounds ceil(log_p(n+1)) (p = p(N): 2 integer, 3 decimal/binary, 11 for N = 210) never exceed "
                 "the constructions; the integer bound equals the tournament depth (tight)",
       scales={"ci": dict(n_max=2000), "full": dict(n_max=100000)})
def bound_table_claim(*, n_max, seed):
    t = bound_table(range(1, n_max + 1), Ns=(1, 2, 10, 210))
    bad = 0
    bad += int((t["lower_N1"] != t["upper_tournament"]).sum())            # HHL: tight for integer weights
    for N in (2, 10, 210):
        bad += int((t[f"lower_N{N}"] > t["upper_tournament"]).sum())      # {-1,0,1} weights are N-ary
    bad += int((t["lower_N10"] > t["upper_bakaev"]).sum())                # consistency if their weights are decimal
    bad += sum(smallest_prime_not_dividing(N) != p for N, p in P_OF_N_SPEC.items())
    gap = t[t["upper_bakaev"] < t["upper_tournament"]]
    note = (f"n=1..{n_max}; Bakaev et al.'s real-weight bound is below ceil(log2(n+1)) for {len(gap)} values of n "
            f"(first n={int(gap['n'].min()) if len(gap) else 'none'}: F_4 = max of 5 numbers with 2 hidden layers), "
            "so the HBDS conjecture holds for integer weights (HHL) but not for all real weights; that construction "
            "is cited, not rebuilt here")
    sample = t[t["n"].isin([1, 2, 3, 4, 8, 26, 80, 100, 1000, 2000, 10000, 100000])]
    return Identity(discrepancy=bad, instances=len(t), what="violated inequalities", data=sample, note=note)


@claim(PAPER, "p_of_N_logarithmic", source="derived", ref="Thm 4",
       citation="Thm 4: Omega(ln n / ln ln N) from p(N) = O(ln N) (spec §3 [INFERRED])",
       statement="The smallest prime p(N) not dividing N satisfies p(N) <= 3 ln N for all 3 <= N <= N_max "
                 "(an explicit O(ln N); derived constant, spec max 2.79 at N = 6)",
       scales={"ci": dict(N_max=20000), "full": dict(N_max=1000000)})
def p_of_N_logarithmic(*, N_max, seed):
    Ns = np.arange(3, N_max + 1)
    ps = np.array([smallest_prime_not_dividing(int(N)) for N in Ns])
    ratio = ps / np.log(Ns)
    i = int(np.argmax(ratio))
    # record-setting N (where p(N) increases): the primorials
    running = np.maximum.accumulate(ps)
    first = np.r_[True, running[1:] > running[:-1]]
    rec = [(int(N), int(p)) for N, p in zip(Ns[first], ps[first])]
    data = pd.DataFrame({"N": [r[0] for r in rec], "p": [r[1] for r in rec],
                         "p_over_lnN": [r[1] / log(r[0]) for r in rec]})
    return Bound(value=float(ratio[i]), bound=3.0, side="<=", data=data,
                 note=f"max p(N)/ln N = {ratio[i]:.4f} at N = {int(Ns[i])}")


# --------------------------------------------------------------------------- figures

def pyplot_colors(k):
    """k distinct colours (tab20)."""
    from theorylab.core.plotting import pyplot

    cmap = pyplot().get_cmap("tab20")
    return [cmap(i % 20) for i in range(k)]


def _config_label(cfg):
    """Mathtext legend label of a configuration string ``"n=3 widths=[7] N=10 p=3"``."""
    import re

    m = re.fullmatch(r"n=(\S+) widths=(\[.*\]) N=(\S+) p=(\S+)", cfg)
    return f"$n={m[1]}$, widths {m[2]}, $N={m[3]}$, $p={m[4]}$" if m else cfg


@figure(PAPER, "depth_bounds_vs_n",
        caption="Hidden layers needed/sufficient for F_n: AHM lower bounds ceil(log_p(n+1)) for integer (p=2), "
                "binary/decimal (p=3) and 210-ary (p=11) weights, against the tournament ceil(log2(n+1)) and "
                "Bakaev et al.'s ceil(log3(n-1))+1",
        scales={"ci": dict(n_max=1000), "full": dict(n_max=100000)})
def depth_bounds_vs_n(*, n_max, seed):
    ns = np.unique(np.geomspace(1, n_max, 400).astype(int))
    t = bound_table(ns, Ns=(1, 2, 10, 210))
    fig, axes = subplots(1, 1, width=6.0, height=4.0)
    ax = axes[0, 0]
    # every curve is a bound (a formula, no measurement): colours tell them apart, solid = upper, dashed = lower
    styles = [("upper_tournament", r"upper: tournament $\lceil\log_2(n+1)\rceil$", "k", "-"),
              ("upper_bakaev", r"upper: Bakaev et al. 2025, $\lceil\log_3(n-1)\rceil+1$ (real weights)",
               "tab:purple", "-"),
              ("lower_N1", r"lower: integer weights, $p=2$ (HHL)", "tab:blue", "--"),
              ("lower_N10", r"lower: $N=2$ or $10$, $p=3$ (AHM)", "tab:orange", "--"),
              ("lower_N210", r"lower: $N=210$, $p=11$ (AHM)", "tab:green", "--")]
    for col, label, color, ls in styles:
        ax.step(t["n"], t[col], where="post", label=label, color=color, linestyle=ls)
    ax.set_xscale("log")
    ax.set_xlabel(r"$n$  ($F_n = \max(0, x_1, \dots, x_n)$)")
    ax.set_ylabel("hidden layers")
    ax.legend(fontsize=7)
    return fig, t


@figure(PAPER, "lower_bound_vs_N",
        caption="AHM lower bound ceil(log_{p(N)}(n+1)) versus N for n = 10^3 and 10^6 (dots: every N; line: the "
                "worst case over N' <= N, attained at primorials), with the Omega(ln n / ln ln N) scale "
                "ln(n+1) / ln ln N (dashed, N >= 16)",
        scales={"ci": dict(N_max=3000), "full": dict(N_max=100000)})
def lower_bound_vs_N(*, N_max, seed):
    Ns = np.arange(1, N_max + 1)
    frames = []
    fig, axes = subplots(1, 1, width=8.2, height=4.0)
    ax = axes[0, 0]
    for n, color in ((10 ** 3, "tab:blue"), (10 ** 6, "tab:red")):
        t = _lower_bound_table(n, Ns)
        t.insert(0, "n", n)
        t["worst_case_up_to_N"] = np.minimum.accumulate(t["lower_bound"].to_numpy())
        frames.append(t)
        k = int(round(np.log10(n)))
        ax.plot(t["N"], t["lower_bound"], ".", color=color, markersize=2, alpha=0.25)
        ax.step(t["N"], t["worst_case_up_to_N"], where="post", color=color,
                label=f"$n = 10^{k}$: " + r"$\min_{N' \leq N} \lceil\log_{p(N')}(n+1)\rceil$")
        big = (t["N"] >= 16).to_numpy()
        theory_line(ax, t["N"].to_numpy(float)[big], t["ln_n_over_lnln_N"].to_numpy(float)[big],
                    label=f"$n = 10^{k}$: " + r"scale $\ln(n+1) / \ln\ln N$")
    ax.set_xscale("log")
    ax.set_xlabel(r"$N$ (weights are $N$-ary fractions)")
    ax.set_ylabel("hidden layers (lower bound)")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    data = pd.concat(frames, ignore_index=True)
    data["ln_n_over_lnln_N"] = data["ln_n_over_lnln_N"].fillna(0.0)
    return fig, data


@figure(PAPER, "invariant_by_face_dimension",
        caption="Share of faces of the Newton polytopes of random N-ary networks whose normalized volume is "
                "divisible by p, by face dimension d; the invariant predicts 1 for d >= p^k (dashed) when p does "
                "not divide N, and nothing for p | N (dyadic weights, p = 2)",
        scales={"ci": dict(configs=INVARIANT_CI[:4] + ((3, (7,), 2, 2, 3),)),
                "full": dict(configs=INVARIANT_FULL + ((3, (7,), 2, 2, 30), (4, (8,), 2, 2, 15)))})
def invariant_by_face_dimension(*, configs, seed):
    configs = tuple((n, tuple(w), N, p, m) for n, w, N, p, m in configs)
    table = _invariant(configs, seed)
    g = (table.groupby(["config", "N", "p", "k", "threshold", "dim"], sort=False)["divisible"]
         .agg(["mean", "size"]).reset_index().rename(columns={"mean": "share_divisible", "size": "faces"}))
    fig, axes = subplots(1, 1, width=8.6, height=4.0)
    ax = axes[0, 0]
    colors = pyplot_colors(g["config"].nunique())
    for i, (cfg, t) in enumerate(g.groupby("config", sort=False)):
        control = t["N"].iloc[0] % t["p"].iloc[0] == 0           # p | N: no invariant predicted
        t = t.sort_values("dim")
        line, = ax.plot(t["dim"] + 0.04 * i, t["share_divisible"], "s:" if control else "o-", color=colors[i],
                        label=_config_label(cfg) + (r" ($p \mid N$)" if control else ""), alpha=0.85)
        ax.axvline(t["threshold"].iloc[0] + 0.04 * i, color=line.get_color(), linestyle="--", alpha=0.4)
    ax.plot([], [], "--", color="0.5", alpha=0.6, label=r"threshold $d = p^k$ (invariant: share 1 above)")
    ax.set_xticks(np.arange(int(g["dim"].min()), int(g["dim"].max()) + 1))   # dimensions are integers
    ax.set_xlabel(r"face dimension $d$")
    ax.set_ylabel(r"share of faces $F$ with $p \mid \mathrm{Vol}(F)$")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(fontsize=6.5, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig, g
