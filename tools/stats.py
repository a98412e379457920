"""Match statistics for engine testing: Elo, error bars, LOS, nElo and GSPRT.

Pure Python (stdlib only), no engine code, so it can be unit-tested on its
own (see tools/test_stats.py).

Conventions (the ones fastchess, cutechess and OpenBench use):

* A game scores 1, 1/2 or 0 from the first engine's point of view.  A *pair*
  is the two games of one opening with colours swapped; its score is the sum
  of both games (0, 1/2, 1, 3/2, 2) and it falls in one of the pentanomial
  bins [LL, LD, DD+WL, WD, WW].  Pentanomial quantities use the pair score
  divided by 2, so that "score" is on the same 0..1 scale in both models.
* Elo(score) = -400 * log10(1/score - 1).
* The 95 % interval of the Elo is the image of score +- 1.959964 * stderr,
  where stderr = sqrt(var / n) with var the per-observation variance (per game
  for the trinomial model, per pair for the pentanomial model), and the
  reported error is half the width of that interval.
* nElo (normalized Elo) = (score - 0.5) / sigma_game * 800 / ln(10).  With
  pairs sigma_game is estimated as sqrt(2 * var_pair), i.e. the pair-based
  formula divides by an extra sqrt(2).
* LOS = P(true score > 0.5) under the normal approximation of the same model
  (fastchess' definition); los_wl() is the classic draw-free cutechess formula
  0.5 * (1 + erf((W - L) / sqrt(2 (W + L)))).
* GSPRT: generalized SPRT of Michel Van den Bergh, log-likelihood ratio of the
  maximum-likelihood distributions constrained to the two hypotheses, in the
  "normalized" (nElo, fastchess' and OpenBench's default) or "logistic"
  (plain Elo) model, with zero counts regularized to 1e-3 as fastchess does.
  Bounds are ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054
# d(Elo)/d(score) at score 0.5 is 1600/ln(10); nElo uses half of it:
# nElo = (score - 0.5) / sigma * 800 / ln(10).
NELO_SCALE = 800.0 / math.log(10.0)

TRINOMIAL_SCORES = (0.0, 0.5, 1.0)                  # L, D, W
PENTANOMIAL_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)    # LL, LD, DD+WL, WD, WW


# ---------------------------------------------------------------------------
# Elo <-> score
# ---------------------------------------------------------------------------

def score_to_elo(score: float) -> float:
    """Logistic Elo difference for an expected score in [0, 1]."""
    if math.isnan(score):
        return math.nan
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0   # + 0.0: no "-0.00"


def elo_to_score(elo: float) -> float:
    """Expected score for a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def los_wl(wins: int, losses: int) -> float:
    """Classic likelihood of superiority (draws ignored), as in cutechess."""
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


# ---------------------------------------------------------------------------
# Elo estimates with error bars
# ---------------------------------------------------------------------------

@dataclass
class EloEstimate:
    model: str            # "trinomial" or "pentanomial"
    n: int                # number of observations (games or pairs)
    score: float          # mean score on the 0..1 scale
    variance: float       # variance of one observation (game or pair/2)
    elo: float
    elo_error: float      # half width of the 95 % interval
    elo_lower: float
    elo_upper: float
    nelo: float
    nelo_error: float
    los: float            # probability (0..1) that the first engine is stronger

    def format_elo(self) -> str:
        return f"{fmt_num(self.elo, signed=True)} +/- {fmt_num(self.elo_error)}"

    def format_nelo(self) -> str:
        return f"{fmt_num(self.nelo, signed=True)} +/- {fmt_num(self.nelo_error)}"


def fmt_num(x: float, signed: bool = False, digits: int = 2) -> str:
    if math.isnan(x):
        return "nan"
    x += 0.0
    if math.isinf(x):
        return ("+inf" if signed else "inf") if x > 0 else "-inf"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _estimate(model: str, scores, counts, pair_factor: float) -> EloEstimate:
    n = sum(counts)
    if n <= 0:
        nan = math.nan
        return EloEstimate(model, 0, nan, nan, nan, nan, nan, nan, nan, nan, 0.5)
    mu = sum(a * c for a, c in zip(scores, counts)) / n
    var = sum(c * (a - mu) ** 2 for a, c in zip(scores, counts)) / n
    stderr = math.sqrt(var / n)
    lo_s, hi_s = mu - Z95 * stderr, mu + Z95 * stderr
    elo = score_to_elo(mu)
    elo_lo, elo_hi = score_to_elo(lo_s), score_to_elo(hi_s)
    elo_err = (elo_hi - elo_lo) / 2.0 if math.isfinite(elo) else math.inf
    # sigma of one *game*: per-game variance, or 2 * variance of the pair mean.
    sigma_game = math.sqrt(pair_factor * var)
    if sigma_game > 0.0:
        nelo = (mu - 0.5) / sigma_game * NELO_SCALE
        nelo_err = Z95 * stderr / sigma_game * NELO_SCALE
    else:
        nelo = 0.0 if mu == 0.5 else math.copysign(math.inf, mu - 0.5)
        nelo_err = 0.0 if mu == 0.5 else math.inf
    if stderr > 0.0:
        los = _normal_cdf((mu - 0.5) / stderr)
    else:
        los = 0.5 if mu == 0.5 else (1.0 if mu > 0.5 else 0.0)
    return EloEstimate(model, n, mu, var, elo, elo_err, elo_lo, elo_hi, nelo, nelo_err, los)


def trinomial(wins: int, draws: int, losses: int) -> EloEstimate:
    """Elo estimate from game results, treating games as independent."""
    return _estimate("trinomial", TRINOMIAL_SCORES, (losses, draws, wins), 1.0)


def pentanomial(penta) -> EloEstimate:
    """Elo estimate from pair results [LL, LD, DD+WL, WD, WW]."""
    if len(penta) != 5:
        raise ValueError("pentanomial counts must be [LL, LD, DD+WL, WD, WW]")
    return _estimate("pentanomial", PENTANOMIAL_SCORES, tuple(penta), 2.0)


# ---------------------------------------------------------------------------
# Generalized SPRT
# ---------------------------------------------------------------------------

def _regularize(counts):
    return [c if c > 0 else 1e-3 for c in counts]


def _solve_decreasing(f, lo: float, hi: float) -> float:
    """Root of a strictly decreasing f on the open interval (lo, hi),
    with f -> +inf at lo and f -> -inf at hi (bisection to full precision)."""
    for _ in range(400):
        mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi:
            break
        v = f(mid)
        if v > 0.0:
            lo = mid
        elif v < 0.0:
            hi = mid
        else:
            return mid
    return 0.5 * (lo + hi)


def mle_logistic(scores, probs, s: float):
    """Distribution maximizing sum(probs * log p) subject to mean(p) == s.

    Proposition 1.1 of Van den Bergh, "Comments on Normalized Elo":
    p_i = probs_i / (1 + theta * (a_i - s)) with theta the root of
    sum probs_i (a_i - s) / (1 + theta (a_i - s)) = 0.
    """
    a_min, a_max = min(scores), max(scores)
    if not a_min < s < a_max:
        raise ValueError("score hypothesis outside the range of outcomes")

    def f(theta):
        return sum(p * (a - s) / (1.0 + theta * (a - s)) for a, p in zip(scores, probs))

    theta = _solve_decreasing(f, -1.0 / (a_max - s), -1.0 / (a_min - s))
    p = [q / (1.0 + theta * (a - s)) for a, q in zip(scores, probs)]
    tot = sum(p)
    return [x / tot for x in p]


def mle_normalized(scores, probs, mu_ref: float, t_star: float,
                   tol: float = 1e-12, max_iter: int = 10000):
    """Distribution maximizing sum(probs * log p) subject to
    (mean(p) - mu_ref) / sd(p) == t_star.

    Section 4.1 of Van den Bergh, "Comments on Normalized Elo": fixed-point
    iteration p_i = probs_i / (1 + theta * phi_i) with
    phi_i = a_i - mu_ref - t*/2 * sigma * (1 + ((a_i - mu) / sigma)^2),
    starting from the uniform distribution (as fastchess does).
    """
    n = len(scores)
    p = [1.0 / n] * n
    for _ in range(max_iter):
        mu = sum(a * x for a, x in zip(scores, p))
        var = sum(x * (a - mu) ** 2 for a, x in zip(scores, p))
        sigma = math.sqrt(var)
        phi = [a - mu_ref - 0.5 * t_star * sigma * (1.0 + ((a - mu) / sigma) ** 2) for a in scores]
        u, v = min(phi), max(phi)
        if not (u < 0.0 < v):
            break

        def f(theta):
            return sum(q * ph / (1.0 + theta * ph) for q, ph in zip(probs, phi))

        theta = _solve_decreasing(f, -1.0 / v, -1.0 / u)
        new_p = [q / (1.0 + theta * ph) for q, ph in zip(probs, phi)]
        tot = sum(new_p)
        new_p = [x / tot for x in new_p]
        diff = max(abs(x - y) for x, y in zip(new_p, p))
        p = new_p
        if diff < tol:
            break
    return p


def _llr(scores, counts, model: str, elo0: float, elo1: float, pairs: bool) -> float:
    counts = _regularize(counts)
    total = sum(counts)
    probs = [c / total for c in counts]
    if model == "logistic":
        p0 = mle_logistic(scores, probs, elo_to_score(elo0))
        p1 = mle_logistic(scores, probs, elo_to_score(elo1))
    elif model == "normalized":
        k = math.sqrt(2.0) if pairs else 1.0
        p0 = mle_normalized(scores, probs, 0.5, k * elo0 / NELO_SCALE)
        p1 = mle_normalized(scores, probs, 0.5, k * elo1 / NELO_SCALE)
    else:
        raise ValueError(f"unknown SPRT model {model!r} (use 'normalized' or 'logistic')")
    return total * sum(q * (math.log(b) - math.log(a)) for q, a, b in zip(probs, p0, p1))


def llr_trinomial(wins: int, draws: int, losses: int, elo0: float, elo1: float,
                  model: str = "normalized") -> float:
    """GSPRT log-likelihood ratio from W/D/L (games treated as independent)."""
    return _llr(TRINOMIAL_SCORES, [losses, draws, wins], model, elo0, elo1, pairs=False)


def llr_pentanomial(penta, elo0: float, elo1: float, model: str = "normalized") -> float:
    """GSPRT log-likelihood ratio from pair results [LL, LD, DD+WL, WD, WW]."""
    if len(penta) != 5:
        raise ValueError("pentanomial counts must be [LL, LD, DD+WL, WD, WW]")
    return _llr(PENTANOMIAL_SCORES, list(penta), model, elo0, elo1, pairs=True)


class SPRT:
    """Sequential probability ratio test of H0: elo = elo0 against H1: elo = elo1."""

    def __init__(self, elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05,
                 model: str = "normalized"):
        if not elo0 < elo1:
            raise ValueError("SPRT: elo0 must be less than elo1")
        if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
            raise ValueError("SPRT: need 0 < alpha, beta < 1 and alpha + beta < 1")
        if model not in ("normalized", "logistic"):
            raise ValueError("SPRT: model must be 'normalized' or 'logistic'")
        self.elo0, self.elo1 = float(elo0), float(elo1)
        self.alpha, self.beta = float(alpha), float(beta)
        self.model = model
        self.lower = math.log(beta / (1.0 - alpha))
        self.upper = math.log((1.0 - beta) / alpha)

    def llr(self, penta=None, wdl=None) -> float:
        """LLR from pentanomial counts if any pair is complete, else from W/D/L."""
        if penta is not None and sum(penta) > 0:
            return llr_pentanomial(penta, self.elo0, self.elo1, self.model)
        if wdl is not None and sum(wdl) > 0:
            w, d, l = wdl
            return llr_trinomial(w, d, l, self.elo0, self.elo1, self.model)
        return 0.0

    def decision(self, llr: float):
        """'H1' (accept elo1: the change is good), 'H0' (accept elo0) or None."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def describe(self) -> str:
        return (f"[{self.elo0:.2f}, {self.elo1:.2f}] {self.model}, "
                f"alpha={self.alpha:g} beta={self.beta:g}, bounds ({self.lower:.2f}, {self.upper:.2f})")
