"""Total variation distance: exact enumeration, the equivalence test for mixtures of products,
relative-error estimators for products, and Ising models.

Implements the computational objects of Bhattacharyya, Gayen, Meel, Myrisiotis, Pavan,
Vinodchandran, "Computational Explorations of Total Variation Distance", ICLR 2025
(arXiv:2412.10370), paper id ``tv_distance``:

* distributions over [q]^n: :func:`product`, :func:`mixture` (exact rational view kept);
* exact d_TV by enumeration: :func:`tv_exact` (jitted), :func:`tv_exact_rational`, :func:`tv_numpy`;
* the deterministic equivalence test: :func:`equivalent` (witness point when not equivalent);
* approximations for products: :func:`coupling_estimate` (randomized, (eps, delta)),
  :func:`fptas_uniform` (deterministic, Q uniform), :func:`coupling_bounds` (Z/n <= TV <= Z);
* Ising models: :func:`ising`, :func:`log_partition`, :func:`marginal_plus`, :func:`ising_tv`,
  :func:`field_change` (the single-site field change behind the TV-hardness reduction).
"""

from .distributions import (FloatInputWarning, Mixture, conditioning_pair, mixture, perturb, product, random_mixture,
                            random_product, split_and_permute)
from .equivalence import EquivalenceResult, equivalent
from .estimators import (FptasResult, coupling_bounds, coupling_estimate, coupling_g_samples, coupling_identity,
                         coupling_parts, coupling_samples_needed, fptas_uniform, uniform)
from .exact import joint_pmf, tv_exact, tv_exact_rational, tv_numpy
from .ising import (IsingModel, field_change, ising, ising_tv, log_partition, log_weights, marginal_plus,
                    log_partition_from_tv, marginal_from_tv, marginal_shift, pin, probabilities,
                    random_ising)

__all__ = ["EquivalenceResult", "FloatInputWarning", "FptasResult", "IsingModel", "Mixture", "conditioning_pair",
           "coupling_bounds", "coupling_estimate", "coupling_g_samples", "coupling_identity", "coupling_parts",
           "coupling_samples_needed", "equivalent", "field_change", "fptas_uniform", "ising", "ising_tv", "joint_pmf",
           "log_partition", "log_partition_from_tv", "log_weights", "marginal_from_tv", "marginal_plus",
           "marginal_shift", "mixture", "perturb", "pin", "probabilities", "product", "random_ising",
           "random_mixture", "random_product", "split_and_permute", "tv_exact", "tv_exact_rational", "tv_numpy",
           "uniform"]
