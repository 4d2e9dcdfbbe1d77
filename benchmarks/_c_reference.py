"""A plain C -O3 reference for the SignSGD SDE Euler–Maruyama step, compiled at benchmark time.

The step of Cor. 3.3 (Gaussian noise, diagonal Hessian h, noise scales sig):

    s = erf(h x / (sqrt(2) sig)),   x <- x - s dt + sqrt(eta dt) sqrt(1 - s^2) Z,   Z ~ N(0, 1),

in straightforward C: libm's ``erf``, normals by the polar Box–Muller method on a xoshiro256+
uniform generator (one stream per path, seeded by splitmix64 from the path's seed), one core.
It is compiled with the system C compiler (``$CC``, else ``cc``/``gcc``/``clang``) into a shared
library in a temporary folder and called through ctypes; without a compiler the benchmark says so
instead of printing a ratio.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

C_SOURCE = r"""
#include <math.h>
#include <stdint.h>

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

static inline double uniform(uint64_t st[4]) {           /* xoshiro256+, 53 bits in [0, 1) */
    uint64_t r = st[0] + st[3], t = st[1] << 17;
    st[2] ^= st[0]; st[3] ^= st[1]; st[1] ^= st[2]; st[0] ^= st[3];
    st[2] ^= t; st[3] = rotl(st[3], 45);
    return (double)(r >> 11) * 0x1.0p-53;
}

/* x: (n_paths, d) row-major, overwritten by X_T of each path */
void signsgd_em(double *x, const double *h, const double *sig, long d, long n_paths, long n_steps,
                double eta, double dt, const uint64_t *seeds) {
    const double sq = sqrt(eta * dt), r2 = 1.0 / sqrt(2.0);
    for (long p = 0; p < n_paths; ++p) {
        uint64_t sm = seeds[p], st[4];
        for (int i = 0; i < 4; ++i) st[i] = splitmix64(&sm);
        double *xp = x + p * d, spare = 0.0;
        int have_spare = 0;
        for (long n = 0; n < n_steps; ++n) {
            for (long j = 0; j < d; ++j) {
                double z;
                if (have_spare) { z = spare; have_spare = 0; }
                else {
                    double u, v, q;
                    do { u = 2.0 * uniform(st) - 1.0; v = 2.0 * uniform(st) - 1.0; q = u * u + v * v; }
                    while (q >= 1.0 || q == 0.0);
                    double f = sqrt(-2.0 * log(q) / q);
                    z = u * f; spare = v * f; have_spare = 1;
                }
                double s = erf(h[j] * xp[j] * r2 / sig[j]);
                xp[j] += -s * dt + sq * sqrt(1.0 - s * s) * z;
            }
        }
    }
}
"""


def compiler() -> str | None:
    for name in [os.environ.get("CC"), "cc", "gcc", "clang"]:
        if name and shutil.which(name):
            return shutil.which(name)
    return None


def build() -> tuple[ctypes.CDLL, str] | tuple[None, str]:
    """Compile the reference; (library, command) or (None, why not)."""
    cc = compiler()
    if cc is None:
        return None, "no C compiler on PATH ($CC, cc, gcc, clang)"
    folder = Path(tempfile.mkdtemp(prefix="theorylab_cref_"))
    src, lib = folder / "signsgd_em.c", folder / "signsgd_em.so"
    src.write_text(C_SOURCE)
    cmd = [cc, "-O3", "-shared", "-fPIC", "-o", str(lib), str(src), "-lm"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        return None, f"{' '.join(cmd)} failed: {done.stderr.strip()[:300]}"
    dll = ctypes.CDLL(str(lib))
    f = dll.signsgd_em
    dptr, uptr = np.ctypeslib.ndpointer(np.float64, flags="C"), np.ctypeslib.ndpointer(np.uint64, flags="C")
    f.argtypes = [dptr, dptr, dptr, ctypes.c_long, ctypes.c_long, ctypes.c_long, ctypes.c_double,
                  ctypes.c_double, uptr]
    f.restype = None
    return dll, " ".join(cmd[:3] + cmd[-1:])


def run(dll, x0, h, sig, eta, dt, n_steps, seeds) -> np.ndarray:
    """X_T of every path (n_paths, d), one core."""
    n_paths, d = len(seeds), x0.size
    x = np.ascontiguousarray(np.tile(x0, (n_paths, 1)), dtype=np.float64)
    dll.signsgd_em(x, np.ascontiguousarray(h, float), np.ascontiguousarray(sig, float), d, n_paths,
                   n_steps, float(eta), float(dt), np.ascontiguousarray(seeds, np.uint64))
    return x
