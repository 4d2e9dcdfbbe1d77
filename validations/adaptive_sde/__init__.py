"""Compagnoni, Liu, Islamov, Proske, Orvieto, Lucchi, "Adaptive Methods through the Lens of
SDEs: Theoretical Insights on the Role of Noise", ICLR 2025, arXiv 2411.15958 (issue #3).

Provenance: the paper's body could not be read from here (only its abstract); theorem
numbers follow the public OpenReview reviews of the paper (third-party), and the explicit
constants are our DERIVED forms or RECALLED readings of them.  Each claim
below states which.  The stationary covariances of SGD (Lemma 3.8: (eta/2) H^-1 Sigma), Adam
(Lemma C.52: (eta/2) Sigma^(1/2) H^-1) and AdamW (Lemma C.57: (eta/2)(H Sigma^(-1/2) + theta I)^-1)
are as quoted by a third party's full-text reading of arXiv 2411.15958 (a public research note
found with the code search, not the paper itself); the brief's derived stationary losses agree
with them (E f = tr(H Cov) / 2).  The checks test those forms against simulation.

The claims are here, the figures in ``figures.py``; the runs behind both in :mod:`theorylab.sde.experiments`.
"""

from __future__ import annotations

import numpy as np

from theorylab.core import Bound, Estimate, Paper, Slope, claim, fit_loglog
from theorylab.core.evidence import z_of
from theorylab.core.rates import batch_means, curve_slope
from theorylab.sde import adaptive_stationary_loss, convergence_table, sign_mean, t_density_at_zero
from theorylab.sde import experiments as E
from theorylab.sde.engine import em_ou_moments, ou_moments
from theorylab.sde.experiments import H10, HA as _HA, adaptive_cases as _adaptive_cases
from theorylab.sde.experiments import stationary_sweep as _stationary_sweep

PAPER = Paper(id="adaptive_sde",
              title="Adaptive Methods through the Lens of SDEs: Theoretical Insights on the Role of Noise",
              authors="Enea Monzio Compagnoni, Tianlin Liu, Rustem Islamov, Frank Norbert Proske, Antonio Orvieto, "
                      "Aurelien Lucchi", arxiv="2411.15958")

def _ratio_estimate(m, lo, hi, pred, **kw):
    return Estimate(value=m / pred, ci=(lo / pred, hi / pred), predicted=1.0, **kw)


# ---------------------------------------------------------------------------------------------
# 0. the engine itself: Euler–Maruyama strong order 1/2 (GBM) and weak order 1 (GBM, OU)
# ---------------------------------------------------------------------------------------------

_ENGINE = {"ci": dict(n_paths=4000, levels=(2, 3, 4, 5, 6)), "full": dict(n_paths=100_000, levels=(2, 3, 4, 5, 6, 7))}
# OU: h <= 1/16 (the exact EM weak error has log-log slope 1.07 over [1/64, 1/4], 1.02 over [1/256, 1/16])
_ENGINE_OU = {"ci": dict(n_paths=4000, levels=(4, 5, 6, 7, 8)), "full": dict(n_paths=100_000, levels=(4, 5, 6, 7, 8, 9))}
# GBM with mu = sigma = 1/2: at mu = sigma = 1 the strong slope over h in [1/64, 1/4] is 0.44
# (pre-asymptotic; 0.50 over [1/256, 1/16]), measured while writing this check.
_GBM = dict(mu=0.5, sigma=0.5)


@claim(PAPER, "em_strong_order_gbm", source="third-party", ref="Thm 10.2.2, §4", citation="engine (Kloeden–Platen Thm 10.2.2); paper §4 integrates by EM",
       statement="Euler–Maruyama has strong order 1/2 on geometric Brownian motion (coupled Brownian levels, "
                 "exact solution from W_T)",
       scales=_ENGINE)
def em_strong_order_gbm(*, n_paths, levels, seed):
    df = convergence_table("gbm", 1.0, t_end=1.0, levels=levels, n_paths=n_paths, seed=seed, **_GBM)
    fit = fit_loglog(df.h.values, samples=batch_means(df.attrs["samples_strong"]), seed=seed)
    return Slope(fit=fit, predicted=0.5, data=df.drop(columns=[], errors="ignore"))


@claim(PAPER, "em_weak_order_gbm", source="third-party", ref="Thm 14.5.2", citation="engine (Kloeden–Platen Thm 14.5.2)",
       statement="Euler–Maruyama has weak order 1 on GBM: |E X^h_T - E X_T| = O(h), coupled difference estimator",
       scales=_ENGINE)
def em_weak_order_gbm(*, n_paths, levels, seed):
    df = convergence_table("gbm", 1.0, t_end=1.0, levels=levels, n_paths=n_paths, seed=seed, **_GBM)
    fit = fit_loglog(df.h.values, samples=batch_means(df.attrs["samples_weak"]), seed=seed)
    # closed form E X^h_T = (1 + mu h)^(T/h): the exact error curve's slope over the same window
    df["weak_exact"] = np.abs((1 + _GBM["mu"] * df.h) ** (1 / df.h) - np.exp(_GBM["mu"]))
    return _weak_slope(fit, df)


def _weak_slope(fit, df):
    """Slope 1 with the pre-asymptotic allowance |slope of the exact error curve - 1| on the window."""
    exact = curve_slope(df.h.to_numpy(dtype=float), df.weak_exact.to_numpy(dtype=float))
    return Slope(fit=fit, predicted=1.0, tol=abs(exact - 1), data=df,
                 note=f"exact weak-error curve has slope {exact:.3f} on this window (tol = its distance to 1); "
                      f"CI by bootstrap over paths (the levels share each path's Brownian increments, so their "
                      f"errors are correlated)")


@claim(PAPER, "em_weak_order_ou", source="third-party", ref="Thm 14.5.2", citation="engine (Kloeden–Platen Thm 14.5.2)",
       statement="Euler–Maruyama has weak order 1 on Ornstein–Uhlenbeck: |E (X^h_T)^2 - E X_T^2| = O(h), "
                 "reference two levels finer on the same Brownian path, its bias removed in closed form",
       scales=_ENGINE_OU)
def em_weak_order_ou(*, n_paths, levels, seed):
    df = convergence_table("ou", 1.0, t_end=1.0, levels=levels, n_paths=n_paths, seed=seed, theta=1.0, mu=0.0,
                           sigma=1.0)
    fit = fit_loglog(df.h.values, samples=batch_means(df.attrs["samples_weak"]), seed=seed)
    m, v = ou_moments(1.0, 1.0, 0.0, 1.0, 1.0)
    df["weak_exact"] = [abs(mh ** 2 + vh - m ** 2 - v) for mh, vh in (em_ou_moments(1.0, 1.0, 0.0, 1.0, 1.0, h)
                                                                       for h in df.h)]
    return _weak_slope(fit, df)


# ---------------------------------------------------------------------------------------------
# 1. weak approximation: optimizer vs its SDE, error O(eta)
# ---------------------------------------------------------------------------------------------

_Q2 = dict(h=(1.0, 4.0), rot_seed=1)
_X0 = (1.5, -1.0)
_WEAK = {"ci": dict(n_paths=3000, etas=(2 ** -3, 2 ** -4, 2 ** -5, 2 ** -6)),
         "full": dict(n_paths=100_000, etas=(2 ** -3, 2 ** -4, 2 ** -5, 2 ** -6, 2 ** -7))}
_RHO = dict(rho1=5.0, rho2=1.0, theta=0.1)      # RMSpropW/AdamW: beta_i = 1 - rho_i eta, the SDE does not depend on eta


def _weak_claim(optimizer, sigma, *, n_paths, etas, seed):
    df = E.weak_errors_quadratic(optimizer, x0=_X0, sigma=sigma, etas=etas, n_paths=n_paths, seed=seed, **_Q2, **_RHO)
    fit = fit_loglog(df.eta.values, df.weak.values, y_se=df.weak_se.values, seed=seed)
    return Slope(fit=fit, predicted=1.0, side="at_least", data=df,
                 note=f"non-diagonal 2-d quadratic h={_Q2['h']}, sigma={sigma}, t in (0, 2]; SDE by EM with "
                      f"dt = eta/4 on the optimizer's own Gaussian numbers")


for _opt, _sig, _src, _ref, _cit in (
        ("sgd", 1.0, "third-party", "§3", "SGD SDE (Li et al. 2017), baseline of §3"),
        ("signsgd", 0.5, "paper", "Thm 3.2, Cor. 3.3", "Thm 3.2 / Cor. 3.3 (weak order 1)"),
        ("rmspropw", 1.0, "third-party", "Thm 3.10-type", "RMSpropW SDE, Thm 3.10-type (weak order 1) [RECALLED form]"),
        ("adamw", 1.0, "third-party", "Thm 3.12-type", "AdamW SDE, Thm 3.12-type (weak order 1) [RECALLED form]")):
    claim(PAPER, f"weak_order_{_opt}", source=_src, ref=_ref, citation=_cit,
          statement=f"the {_opt} SDE tracks the optimizer's mean loss with sup_t error O(eta) "
                    f"(log-log slope in eta >= 1)",
          scales=_WEAK, fixed=dict(optimizer=_opt, sigma=_sig))(_weak_claim)


# the same check on a small MLP regression (numpy; issue #3's third test objective)

_MLP = dict(n=32, p=2, m=4, label_noise=0.1, data_seed=0, init_seed=1, init_scale=0.5)
_WEAK_MLP = {"ci": dict(n_paths=200, etas=(2 ** -4, 2 ** -5, 2 ** -6)),
             "full": dict(n_paths=5000, etas=(2 ** -4, 2 ** -5, 2 ** -6, 2 ** -7))}


def _weak_mlp_claim(optimizer, *, n_paths, etas, seed, sigma=0.05):
    df, mlp, y0 = E.weak_errors_mlp(optimizer, sigma=sigma, etas=etas, n_paths=n_paths, seed=seed, **_MLP)
    fit = fit_loglog(df.eta.values, df.weak.values, y_se=df.weak_se.values, seed=seed)
    return Slope(fit=fit, predicted=1.0, side="at_least", data=df,
                 note=f"tanh MLP p={_MLP['p']}, m={_MLP['m']} (D={mlp.D}), n={_MLP['n']} teacher data; sigma={sigma}, "
                      f"t in (0, 1]; |Y| at w0 spans [{y0.min():.2g}, {y0.max():.2g}] (all three phases); SDE by EM "
                      f"with dt = eta/4 on the optimizer's own Gaussian numbers")


claim(PAPER, "weak_order_signsgd_mlp", source="paper", ref="Thm 3.2, Cor. 3.3, §4", citation="Thm 3.2 / Cor. 3.3 (weak order 1); §4 protocol: full-batch "
      "gradient + injected Gaussian noise on an MLP",
      statement="on a small MLP regression the SignSGD SDE tracks SignSGD's mean loss with sup_t error O(eta) "
                "(log-log slope in eta >= 1)", scales=_WEAK_MLP, fixed=dict(optimizer="signsgd"))(_weak_mlp_claim)

claim(PAPER, "weak_order_sgd_mlp", source="third-party", ref="§4", citation="SGD SDE (Li et al. 2017), the paper's baseline; MLP as in §4",
      statement="on a small MLP regression the SGD SDE tracks SGD's mean loss with sup_t error O(eta)",
      scales=_WEAK_MLP, fixed=dict(optimizer="sgd"))(_weak_mlp_claim)


# ---------------------------------------------------------------------------------------------
# 2. stationary loss: SignSGD linear in sigma, SGD quadratic; heavy tails
# ---------------------------------------------------------------------------------------------

_STAT = {"ci": dict(eta=4e-3, sigmas=(0.5, 1.0, 2.0, 4.0), n_paths=100, t_avg=6.0),
         "full": dict(eta=1e-3, sigmas=(0.5, 1.0, 2.0, 4.0, 8.0), n_paths=2000, t_avg=20.0)}


def _signsgd_rate_max(sigma_min, c0=1 / np.sqrt(2 * np.pi)):
    """Largest phase-3 rate 2 c0 h_max / sigma_min: sets the O(eta a) discretisation tolerance."""
    return 2 * c0 * H10.max() / sigma_min


@claim(PAPER, "signsgd_stationary_slope", source="derived", ref="Lemma 3.7", citation="Lemma 3.7 setting; [DERIVED] E f = (eta/4) sqrt(pi/2) sum sigma_i",
       statement="SignSGD's stationary loss on a quadratic is linear in sigma (log-log slope 1)", scales=_STAT)
def signsgd_stationary_slope(*, eta, sigmas, n_paths, t_avg, seed):
    df = _stationary_sweep("signsgd", eta=eta, sigmas=sigmas, n_paths=n_paths, t_avg=t_avg, seed=seed)
    fit = fit_loglog(df.sigma.values, df["mean"].values, y_se=df.se.values, seed=seed)
    r = eta * _signsgd_rate_max(min(sigmas))
    return Slope(fit=fit, predicted=1.0, tol=2 * r / np.log(max(sigmas) / min(sigmas)), data=df,
                 note=f"tol: O(eta a) discretisation, eta a_max = {r:.3g}")


@claim(PAPER, "sgd_stationary_slope", source="third-party", ref="Lemma 3.8", citation="Lemma 3.8 (SGD stationary Cov = (eta/2) H^-1 Sigma [3rd-party full-text reading]) -> E f = (eta/4) sum sigma_i^2",
       statement="SGD's stationary loss on a quadratic is quadratic in sigma (log-log slope 2)", scales=_STAT)
def sgd_stationary_slope(*, eta, sigmas, n_paths, t_avg, seed):
    df = _stationary_sweep("sgd", eta=eta, sigmas=sigmas, n_paths=n_paths, t_avg=t_avg, seed=seed)
    fit = fit_loglog(df.sigma.values, df["mean"].values, y_se=df.se.values, seed=seed)
    return Slope(fit=fit, predicted=2.0, data=df,
                 note="the SGD recursion is linear in the noise, so E f is exactly proportional to sigma^2 (the O(eta h) "
                      "correction is the same factor for every sigma); the CI is Monte Carlo error over independent "
                      "runs per sigma")


def _constant_claim(optimizer, *, eta, sigmas, n_paths, t_avg, seed):
    # at sigma = 1 (the scale's sigmas are the slope claims')
    df = _stationary_sweep(optimizer, eta=eta, sigmas=(1.0,), n_paths=n_paths, t_avg=t_avg, seed=seed)
    r = df.iloc[0]
    a = _signsgd_rate_max(r.sigma) if optimizer == "signsgd" else H10.max()
    return _ratio_estimate(r["mean"], r.lo, r.hi, r.predicted, rtol=eta * a / 2, data=df,
                           note=f"ratio measured / predicted at sigma={r.sigma}; tol = eta a_max / 2, the "
                                f"first-order discretisation correction of the stationary variance")


claim(PAPER, "signsgd_stationary_constant", source="derived", ref="Lemma 3.7", citation="Lemma 3.7 setting; [DERIVED] (eta/4) sqrt(pi/2) sum sigma_i",
      statement="SignSGD's stationary loss equals (eta/4) sqrt(pi/2) sum_i sigma_i, independent of H",
      scales=_STAT, fixed=dict(optimizer="signsgd"))(_constant_claim)

claim(PAPER, "sgd_stationary_constant", source="third-party", ref="Lemma 3.8", citation="Lemma 3.8 [3rd-party full-text reading]: E f = tr(H Cov)/2 = (eta/4) sum sigma_i^2",
      statement="SGD's stationary loss equals (eta/4) sum_i sigma_i^2",
      scales=_STAT, fixed=dict(optimizer="sgd"))(_constant_claim)


@claim(PAPER, "signsgd_cauchy_stationary", source="derived", ref="§3.1",
       citation="heavy-tail result (Student-t SDE, §3.1) [DERIVED] E f = eta sum sigma_i / (8 c_nu)",
       statement="under Cauchy noise (nu = 1) SignSGD keeps a finite stationary loss pi eta sum sigma_i / 8",
       scales=_STAT)
def signsgd_cauchy_stationary(*, eta, sigmas, n_paths, t_avg, seed):
    df = _stationary_sweep("signsgd", eta=eta, sigmas=(1.0,), n_paths=n_paths, t_avg=t_avg, seed=seed,
                           noise="student_t", nu=1.0)
    r = df.iloc[0]
    a = _signsgd_rate_max(1.0, t_density_at_zero(1.0))
    return _ratio_estimate(r["mean"], r.lo, r.hi, r.predicted, rtol=eta * a / 2, data=df,
                           note="tol = eta a_max / 2 with a = 2 c_1 h / sigma")


_TAIL = {"ci": dict(n_paths=2 ** 13, groups=(4, 16, 64, 256), eta=0.02, n_steps=250),
         "full": dict(n_paths=2 ** 18, groups=(8, 32, 128, 512, 2048, 8192), eta=0.01, n_steps=1500)}


def _tail_claim(optimizer, predicted, *, n_paths, groups, eta, n_steps, seed):
    # CI: bootstrap over paths (the unit), recomputing the whole curve, so that the points, which
    # share their paths (every n regroups the same f), keep their correlation
    fit, df = E.cauchy_tail_fit(optimizer, n_paths=n_paths, groups=groups, eta=eta, n_steps=n_steps, seed=seed)
    return Slope(fit=fit, predicted=predicted, tol=0.1, data=df,
                 note="median over groups of the sample mean of f over n paths; slope 1 = infinite mean "
                      "(1/2-stable f), slope 0 = finite mean; tol 0.1 for finite-n pre-asymptotics; CI by bootstrap "
                      "over paths of the whole curve (all n share the paths)")


claim(PAPER, "sgd_cauchy_no_stationary_loss", source="paper", ref="§3.1", citation="heavy-tail discussion (§3.1): SGD fails under heavy tails",
      statement="negative control: under Cauchy noise SGD's stationary loss has infinite mean (the sample mean "
                "over n paths grows like n)", scales=_TAIL, fixed=dict(optimizer="sgd", predicted=1.0))(_tail_claim)

claim(PAPER, "signsgd_cauchy_finite_mean", source="paper", ref="§3.1", citation="heavy-tail result (§3.1): SignSGD is robust to heavy tails",
      statement="under Cauchy noise SignSGD's stationary loss has a finite mean (sample mean over n paths "
                "does not grow with n)", scales=_TAIL, fixed=dict(optimizer="signsgd", predicted=0.0))(_tail_claim)


# ---------------------------------------------------------------------------------------------
# 3. the three phases of SignSGD (Lemma 3.4)
# ---------------------------------------------------------------------------------------------

_P1 = {"ci": dict(n_paths=50, eta=4e-3), "full": dict(n_paths=2000, eta=1e-3)}


@claim(PAPER, "signsgd_phase1_law", source="derived", ref="Lemma 3.4", citation="Lemma 3.4 phase 1 (|Y| > 3/2) [DERIVED]: f = (sqrt f0 - sqrt(mu/2) t)^2",
       statement="in phase 1 SignSGD's loss on a 1-d quadratic follows (sqrt(f0) - sqrt(mu/2) t)^2", scales=_P1)
def signsgd_phase1_law(*, n_paths, eta, seed):
    df = E.phase1_law_table(n_paths=n_paths, eta=eta, seed=seed)
    w = int(np.argmax(np.abs(df.ratio - 1)))
    r = df.iloc[w]
    return _ratio_estimate(r["mean"], r.lo, r.hi, r.law, rtol=1e-6, atol=0.0, max_ci_width=0.1, data=df,
                           note=f"worst of t = 1..4 (t = {r.t}); x0 = 5, sigma = 0.1, so |Y| >= 10 throughout")


@claim(PAPER, "signsgd_phase1_bound", source="derived", ref="Lemma 3.4", citation="Lemma 3.4 phase 1, mu-PL bound [DERIVED]",
       statement="in phase 1 SignSGD's mean loss on a 10-d quadratic stays below (sqrt(f0) - sqrt(mu/2) t)^2",
       scales=_P1)
def signsgd_phase1_bound(*, n_paths, eta, seed):
    df = E.phase1_bound_curve(n_paths=n_paths, eta=eta, seed=seed)
    t, m, se, law = (df[c].to_numpy()[1:] for c in ("t", "mean", "se", "bound"))
    gap = (m - law) / law
    w = int(np.argmax(gap))
    v = gap[w]
    s = se[w] / law[w] * z_of(0.95)
    return Bound(value=float(v), bound=0.0, side="<=", ci=(float(v - s), float(v + s)), data=df,
                 note=f"largest (E f - bound) / bound over t <= 0.8 T*, at t = {t[w]:.3g}")


_P3 = {"ci": dict(n_paths=1000, eta=2e-3, sigmas=(0.5, 1.0, 2.0, 4.0)),
       "full": dict(n_paths=20000, eta=1e-3, sigmas=(0.5, 1.0, 2.0, 4.0, 8.0))}


@claim(PAPER, "signsgd_phase3_rate_inverse_sigma", source="third-party", ref="Lemma 3.4, Thm 3.5-type", citation="Lemma 3.4 phase 3 / Thm 3.5-type rate [RECALLED]",
       statement="in phase 3 SignSGD's convergence rate is inversely proportional to sigma (slope -1)", scales=_P3)
def signsgd_phase3_rate_inverse_sigma(*, n_paths, eta, sigmas, seed):
    df = E.phase3_rates(n_paths=n_paths, eta=eta, sigmas=sigmas, seed=seed)
    fit = fit_loglog(df.sigma.values, df.rate.values, y_se=df.se.values, seed=seed)
    return Slope(fit=fit, predicted=-1.0, data=df, note="x0 = sigma / 2 (|Y0| = 1/2) for every sigma")


@claim(PAPER, "signsgd_phase3_rate_constant", source="third-party", ref="Lemma 3.4", citation="Lemma 3.4 phase 3 [RECALLED]: a = sqrt(2/pi) h / sigma",
       statement="in phase 3 E x_t^2 relaxes at rate 2a with a = sqrt(2/pi) h / sigma, within the linearisation "
                 "error of erf at |Y0| = 1/2", scales=_P3)
def signsgd_phase3_rate_constant(*, n_paths, eta, sigmas, seed):
    df = E.phase3_rates(n_paths=n_paths, eta=eta, sigmas=(1.0,), seed=seed)
    r = df.iloc[0]
    lin = 1 - float(sign_mean(0.5)) / (np.sqrt(2 / np.pi) * 0.5)
    return Estimate.from_se(r.ratio, r.se / r.predicted, 1.0, rtol=lin, data=df,
                            note=f"rtol = 1 - erf(Y0/sqrt2) / (sqrt(2/pi) Y0) = {lin:.3f} at Y0 = 1/2 (erf is sub-linear)")


_DRIFT = {"ci": dict(n_draws=200_000), "full": dict(n_draws=4_000_000)}


@claim(PAPER, "signsgd_drift_cdf", source="paper", ref="Thm 3.2, Cor. 3.3", citation="Thm 3.2 (drift 1 - 2P(grad f_gamma < 0)), Cor. 3.3 (erf)",
       statement="the mean SignSGD step equals -(1 - 2 P(g + Z < 0)) and its variance 1 - (that)^2, for Gaussian, "
                 "Student-t(3) and Cauchy noise, across the three phases' |Y|", scales=_DRIFT)
def signsgd_drift_cdf(*, n_draws, seed):
    # fresh draws per (noise, Y) cell: the z-scores are then independent, so sum z^2 ~ chi2_k
    df = E.sign_drift_table(n_draws=n_draws, seed=seed)
    z = df.z_mean.values
    chi2 = float(np.sum(z ** 2))
    k = z.size
    # Estimate of chi2 / k (mean of squared z-scores of independent cells) against 1, with its sampling
    # spread sqrt(2 / k) (the sd of chi2_k / k)
    return Estimate.from_se(chi2 / k, np.sqrt(2 / k), 1.0, max_ci_width=2.0, data=df,
                            note=f"mean of z^2 over {k} (noise, Y) cells; z = (mean - S(Y)) / se; max |z| = {np.abs(z).max():.2f}")


# ---------------------------------------------------------------------------------------------
# 4. RMSpropW / AdamW asymptotic loss and weight-decay saturation
# ---------------------------------------------------------------------------------------------

_ADA = {"ci": dict(eta=4e-3, sigmas=(1.0, 4.0, 16.0), thetas=(0.0, 1.0), n_paths=100, rho1=100.0, rho2=1.0),
        "full": dict(eta=1e-3, sigmas=(1.0, 4.0, 16.0), thetas=(0.0, 1.0), n_paths=2000, rho1=100.0, rho2=1.0)}


def _adaptive_claim(optimizer, *, eta, sigmas, thetas, n_paths, rho1, rho2, seed):
    df = _adaptive_cases(optimizer, eta=eta, sigmas=sigmas, thetas=thetas, n_paths=n_paths, rho1=rho1, rho2=rho2,
                         seed=seed)
    a = df.a_max.max()
    rtol = eta * a + (a / rho1 if optimizer == "adamw" else 0.0)
    # the mean over the (sigma, theta) cases of measured / predicted; the cases use independent seeds, so its
    # standard error is sqrt(sum se_i^2) / k.  (Reporting the worst case with its own CI under-covered: which
    # case is worst changes with the seed; calibration ratio 1.6 over 13 root seeds.)
    r = df.se / df.predicted
    k = len(df)
    value = float(df.ratio.mean())
    se = float(np.sqrt(np.sum(r ** 2)) / k)
    w = int(np.argmax(np.abs(df.ratio - 1)))
    return Estimate.from_se(value, se, 1.0, rtol=rtol, data=df,
                            note=f"mean of measured / predicted over {k} (sigma, theta) cases (per case in the data; farthest "
                                 f"sigma={df.sigma[w]}, theta={df.theta[w]}: {df.ratio[w]:.3f}); "
                                 f"rtol = eta a_max{' + a_max / rho1' if optimizer == 'adamw' else ''} = {rtol:.3g}")


claim(PAPER, "rmspropw_asymptotic_loss", source="third-party", ref="Lemma C.57-type", citation="Lemma C.57-type stationary covariance (eta/2)(H Sigma^-1/2 + theta I)^-1 "
      "[3rd-party full-text reading of the AdamW lemma; RMSpropW analogue DERIVED]: "
      "E f = (eta/4) sum h_i sigma_i / (sqrt(B) h_i + theta sigma_i)",
      statement="RMSpropW's asymptotic loss on a quadratic is (eta/4) sum h sigma / (sqrt(B) h + theta sigma)",
      scales=_ADA, fixed=dict(optimizer="rmspropw"))(_adaptive_claim)

claim(PAPER, "adamw_asymptotic_loss", source="third-party", ref="Lemmas", citation="Lemmas C.52 (Adam, Cov = (eta/2) Sigma^1/2 H^-1) and C.57 (AdamW, Cov = (eta/2)(H Sigma^-1/2 + theta I)^-1) [3rd-party full-text reading]",
      statement="AdamW's asymptotic loss on a quadratic is (eta/4) sum h sigma / (sqrt(B) h + theta sigma)",
      scales=_ADA, fixed=dict(optimizer="adamw"))(_adaptive_claim)


_SAT = {"ci": dict(eta=2e-3, sigmas=(64.0, 256.0, 1024.0), n_paths=200, rho1=100.0, rho2=1.0),
        "full": dict(eta=1e-3, sigmas=(64.0, 256.0, 1024.0, 4096.0), n_paths=2000, rho1=100.0, rho2=1.0)}


def _saturation(optimizer, *, eta, sigmas, n_paths, rho1, rho2, seed):
    df = _adaptive_cases(optimizer, eta=eta, sigmas=sigmas, thetas=(1.0,), n_paths=n_paths, rho1=rho1, rho2=rho2,
                         seed=seed)
    fit = fit_loglog(df.sigma.values, df["mean"].values, y_se=df.se.values, seed=seed)
    tol = float(np.max(_HA / (_HA + min(sigmas))))
    sat = eta * _HA.sum() / 4
    df["saturation"] = sat
    return Slope(fit=fit, predicted=0.0, tol=tol, data=df,
                 note=f"theta = 1: E f -> eta sum h / (4 theta) = {sat:.3g}; tol = local slope of the formula "
                      f"at sigma_min, {tol:.3f}")


claim(PAPER, "rmspropw_weight_decay_saturation", source="third-party", ref="Lemma C.57", citation="Lemma C.57 (AdamW stationary covariance bounded by (eta/2) / theta) [3rd-party reading]; stabilisation [REVIEW]",
      statement="with theta > 0 RMSpropW's asymptotic loss saturates in sigma (log-log slope 0 at large sigma)",
      scales=_SAT, fixed=dict(optimizer="rmspropw"))(_saturation)

claim(PAPER, "adamw_weight_decay_saturation", source="third-party", ref="Lemma C.57", citation="Lemma C.57 (AdamW stationary covariance bounded by (eta/2) / theta) [3rd-party reading]; stabilisation [REVIEW]",
      statement="with theta > 0 AdamW's asymptotic loss saturates in sigma (log-log slope 0 at large sigma)",
      scales=_SAT, fixed=dict(optimizer="adamw"))(_saturation)


# ---------------------------------------------------------------------------------------------
# 5. batch-size scaling rule (Lemma 3.13)
# ---------------------------------------------------------------------------------------------

_SCALE = {"ci": dict(kappas=(1, 2, 4, 8), eta=1e-3, beta1=0.99, beta2=0.998, theta=0.5, sigma=2.0, n_paths=200,
                     n_samples=8000),
          "full": dict(kappas=(1, 2, 4, 8), eta=5e-4, beta1=0.99, beta2=0.999, theta=0.5, sigma=2.0, n_paths=2000,
                       n_samples=24000)}


def _rtol_scaling(kw):
    """First-order discretisation allowance eta sqrt(kappa_max) a_max of the largest step."""
    a = float(np.max(_HA / kw["sigma"] + kw["theta"]))
    return kw["eta"] * np.sqrt(max(kw["kappas"])) * a


def _scaling_stationary(optimizer, *, seed, **kw):
    # delta method with the covariance: path i of every kappa runs on the same per-path seed (paired)
    df, ratio, se, m1, mk = E.scaling_stationary_ratio(optimizer, seed=seed, **kw)
    k = max(kw["kappas"])
    pred = adaptive_stationary_loss(_HA, kw["sigma"], eta=kw["eta"], theta=kw["theta"])
    return Estimate.from_se(ratio, se, 1.0, rtol=_rtol_scaling(kw),
                            data=df, note=f"E f(kappa = {k}) / E f(kappa = 1), time average over the second half; "
                                          f"levels {m1:.4g} and {mk:.4g}, formula {pred:.4g}")


claim(PAPER, "rmspropw_scaling_rule_stationary", source="derived", ref="Lemma 3.13", citation="Lemma 3.13 scaling rule [DERIVED form]",
      statement="scaling B -> kappa B with eta, theta -> sqrt(kappa) x, 1 - beta -> kappa (1 - beta), "
                "eps -> eps / sqrt(kappa) leaves RMSpropW's asymptotic loss unchanged",
      scales=_SCALE, fixed=dict(optimizer="rmspropw"))(_scaling_stationary)

claim(PAPER, "adamw_scaling_rule_stationary", source="derived", ref="Lemma 3.13", citation="Lemma 3.13 scaling rule [DERIVED form]",
      statement="the same scaling rule leaves AdamW's asymptotic loss unchanged",
      scales=_SCALE, fixed=dict(optimizer="adamw"))(_scaling_stationary)


_SPEED = {"ci": dict(_SCALE["ci"], n_samples=6000), "full": dict(_SCALE["full"], n_samples=12000)}


def _per_sample_speed(optimizer, x0, *, seed, **kw):
    """Relaxation rate per sample of E f - f_inf for kappa_max against kappa = 1 (Estimate of the ratio)."""
    # paired bootstrap over paths (the window's end recomputed on every replicate)
    df, est, (lo, hi), stop = E.per_sample_speed(optimizer, x0, seed=seed, **kw)
    k = max(kw["kappas"])
    signal = float(np.max((_HA * x0) ** 2) * k / kw["sigma"] ** 2)
    rtol = min(signal, 1.0) + _rtol_scaling(kw)
    return Estimate(value=est, ci=(lo, hi), predicted=1.0, rtol=rtol, data=df,
                    note=f"per-sample rate of E f - f_inf, kappa = {k} over kappa = 1, samples in [0, {stop:.0f}]; "
                         f"x0 = {x0}; rtol = (grad f)^2 / (Sigma / B) at x0 for kappa = {k} ({signal:.3g}) "
                         f"+ eta sqrt(kappa) a_max")


claim(PAPER, "rmspropw_scaling_rule_per_sample", source="derived", ref="Lemma 3.13", citation="Lemma 3.13 scaling rule [DERIVED form]",
      statement="near the minimum (noise-dominated second moment) the scaling rule leaves RMSpropW's loss-vs-samples "
                "curve unchanged: equal relaxation rate per sample for kappa = 1 and 8",
      scales=_SPEED, fixed=dict(optimizer="rmspropw", x0=0.1))(_per_sample_speed)

claim(PAPER, "adamw_scaling_rule_per_sample", source="derived", ref="Lemma 3.13", citation="Lemma 3.13 scaling rule [DERIVED form]",
      statement="near the minimum the scaling rule leaves AdamW's loss-vs-samples curve unchanged",
      scales=_SPEED, fixed=dict(optimizer="adamw", x0=0.1))(_per_sample_speed)


@claim(PAPER, "rmspropw_scaling_rule_far_from_minimum", source="derived", ref="Lemma 3.13", citation="Lemma 3.13 scaling rule [DERIVED form]",
       statement="the scaling rule leaves RMSpropW's loss-vs-samples curve unchanged from a start where the "
                 "gradient dominates the noise (issue #3 check 5, read literally)", scales=_SPEED,
       expect_reproduced=False,
       why_not="the rule assumes V ~ Sigma / B; far from the minimum V ~ (grad f)^2 + Sigma / B, whose first term does "
               "not scale with B, so at kappa = 8 the per-sample progress is slower (measured rate ratio 0.906 [0.901, 0.911] "
               "at x0 = 1, sigma = 2, full scale; 0.855 [0.839, 0.869] at ci scale); the brief records the paper's criterion as matching asymptotic loss and speed, "
               "not whole-trajectory invariance")
def rmspropw_scaling_rule_far_from_minimum(*, seed, **kw):
    ev = _per_sample_speed("rmspropw", 1.0, seed=seed, **kw)
    ev.rtol = _rtol_scaling(kw)       # the rule itself, no allowance for the neglected (grad f)^2 term
    ev.note += f" [this check: rtol = eta sqrt(kappa) a_max = {ev.rtol:.3g} only]"
    return ev


from . import figures  # noqa: E402,F401  (registers the paper's figures: validations/adaptive_sde/figures.py)
