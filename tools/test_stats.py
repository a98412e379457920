"""Unit tests for tools/stats.py (plain unittest, no engine needed).

Run from the repository root with either of
    python3 -m unittest tools/test_stats.py
    python3 tools/test_stats.py

Every number is checked against an independent computation: a different
formula, a brute-force maximisation, or published reference values from
fastchess' own test-suite (app/tests/elo_test.cpp and sprt_test.cpp).
"""

import math
import os
import random
import statistics
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import stats  # noqa: E402

Z = 1.959963984540054
K = 800.0 / math.log(10.0)


def approx_rel(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b))


def elo_by_hand(score):
    return -400.0 * math.log10(1.0 / score - 1.0)


def penta(ll, ld, wl, dd, wd, ww):
    """fastchess' Stats(ll, ld, wl, dd, wd, ww) order -> our [LL, LD, DD+WL, WD, WW]."""
    return [ll, ld, wl + dd, wd, ww]


# ---------------------------------------------------------------------------
# Independent brute-force maximum-likelihood solvers (used only by the tests)
# ---------------------------------------------------------------------------

def _solve_linear(m, v):
    n = len(v)
    a = [row[:] + [v[i]] for i, row in enumerate(m)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(a[r][c]))
        a[c], a[piv] = a[piv], a[c]
        if a[c][c] == 0.0:
            raise ZeroDivisionError
        for r in range(n):
            if r != c:
                f = a[r][c] / a[c][c]
                for k in range(c, n + 1):
                    a[r][k] -= f * a[c][k]
    return [a[i][n] / a[i][i] for i in range(n)]


def dual_mle(phat, rows, b, lam=None):
    """max sum phat_i log p_i  s.t.  sum_i rows[k][i] p_i = b[k]  (rows[0] = ones).

    Solved through the convex dual  min_l  l.b - sum phat_i log((A^T l)_i)
    by damped Newton; p_i = phat_i / (A^T l)_i.  Returns (p, l) or (None, None)
    when the moment vector b is infeasible."""
    m, n = len(rows), len(phat)
    lam = list(lam) if lam else [1.0] + [0.0] * (m - 1)

    def dots(lv):
        return [sum(lv[k] * rows[k][i] for k in range(m)) for i in range(n)]

    def g(lv):
        d = dots(lv)
        if min(d) <= 0.0:
            return math.inf
        return sum(lv[k] * b[k] for k in range(m)) - sum(q * math.log(x) for q, x in zip(phat, d))

    for _ in range(100):
        d = dots(lam)
        p = [q / x for q, x in zip(phat, d)]
        grad = [b[k] - sum(rows[k][i] * p[i] for i in range(n)) for k in range(m)]
        if max(abs(x) for x in grad) < 1e-13:
            break
        hess = [[sum(phat[i] * rows[k][i] * rows[j][i] / d[i] ** 2 for i in range(n))
                 for j in range(m)] for k in range(m)]
        try:
            step = _solve_linear(hess, [-x for x in grad])
        except ZeroDivisionError:
            return None, None
        g0, t = g(lam), 1.0
        slope = sum(s * x for s, x in zip(step, grad))
        new = None
        while t > 1e-12:
            cand = [lam[k] + t * step[k] for k in range(m)]
            if g(cand) <= g0 + 1e-4 * t * slope:
                new = cand
                break
            t *= 0.5
        if new is None:      # no descent possible: converged or infeasible
            break
        lam = new
    d = dots(lam)
    if min(d) <= 0.0:
        return None, None
    p = [q / x for q, x in zip(phat, d)]
    if max(abs(b[k] - sum(rows[k][i] * p[i] for i in range(n))) for k in range(m)) > 1e-9:
        return None, None
    return p, lam


def loglik(phat, p):
    return sum(q * math.log(x) for q, x in zip(phat, p))


def probs_of(counts):
    c = [x if x > 0 else 1e-3 for x in counts]
    tot = sum(c)
    return tot, [x / tot for x in c]


def golden_max(f, lo, hi, iters=100):
    gr = (math.sqrt(5.0) - 1.0) / 2.0
    for _ in range(iters):
        a, c = hi - gr * (hi - lo), lo + gr * (hi - lo)
        if f(a) > f(c):
            hi = c
        else:
            lo = a
    return 0.5 * (lo + hi)


def bf_trinomial_logistic(w, d, l, s):
    """Max log-likelihood over {L, D, W} with mean score s: one free parameter (D)."""
    _, ph = probs_of([l, d, w])

    def val(dd):
        ww = s - dd / 2.0
        ll = 1.0 - dd - ww
        if min(ll, dd, ww) <= 0.0:
            return -math.inf
        return loglik(ph, [ll, dd, ww])

    dmax = min(2.0 * s, 2.0 * (1.0 - s))
    grid = [dmax * k / 4000.0 for k in range(1, 4000)]
    best = max(grid, key=val)
    return val(golden_max(val, best - dmax / 4000.0, best + dmax / 4000.0))


def bf_trinomial_normalized(w, d, l, t):
    """Max log-likelihood over {L, D, W} with (mu - 1/2)/sigma = t.  Given sigma,
    mu = 1/2 + t sigma and the three probabilities are fixed by the two moments."""
    _, ph = probs_of([l, d, w])

    def val(sig):
        mu = 0.5 + t * sig
        dd = 4.0 * (mu - (sig * sig + mu * mu))
        ww = mu - dd / 2.0
        ll = 1.0 - dd - ww
        if min(ll, dd, ww) <= 0.0:
            return -math.inf
        return loglik(ph, [ll, dd, ww])

    grid = [0.5 * k / 20000.0 for k in range(1, 20000)]
    best = max(grid, key=val)
    return val(golden_max(val, best - 0.5 / 20000.0, best + 0.5 / 20000.0))


def bf_penta_logistic(counts, s):
    _, ph = probs_of(counts)
    a = stats.PENTANOMIAL_SCORES
    p, _ = dual_mle(ph, [[1.0] * 5, list(a)], [1.0, s])
    return loglik(ph, p)


def bf_penta_normalized(counts, t):
    """Profile likelihood: for each sigma the constraint fixes the first two
    moments, a convex problem solved by dual_mle(); then a 1-D search over sigma."""
    _, ph = probs_of(counts)
    a = stats.PENTANOMIAL_SCORES
    rows = [[1.0] * 5, list(a), [x * x for x in a]]
    warm = {"lam": None}

    def val(z):
        sig = 0.5 / (1.0 + math.exp(-z))
        mu = 0.5 + t * sig
        p, lam = dual_mle(ph, rows, [1.0, mu, sig * sig + mu * mu], warm["lam"])
        if p is None:
            warm["lam"] = None
            return -math.inf
        warm["lam"] = lam
        return loglik(ph, p)

    zs = [-12.0 + 24.0 * k / 120 for k in range(121)]
    vals = [val(z) for z in zs]
    k = max(range(len(zs)), key=lambda i: vals[i])
    warm["lam"] = None
    z = golden_max(val, zs[max(k - 1, 0)], zs[min(k + 1, len(zs) - 1)], iters=60)
    warm["lam"] = None
    return val(z)


# ---------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------

class TestEloConversion(unittest.TestCase):
    def test_known_values(self):
        self.assertAlmostEqual(stats.score_to_elo(0.75), 190.848501887865, places=9)
        self.assertAlmostEqual(stats.score_to_elo(0.25), -190.848501887865, places=9)
        self.assertEqual(stats.score_to_elo(0.5), 0.0)
        # 10 : 1 odds is exactly 400 Elo.
        self.assertAlmostEqual(stats.score_to_elo(10.0 / 11.0), 400.0, places=9)
        self.assertEqual(stats.score_to_elo(1.0), math.inf)
        self.assertEqual(stats.score_to_elo(0.0), -math.inf)

    def test_round_trip(self):
        for elo in (-800.0, -100.0, -1.0, 0.0, 3.5, 250.0, 700.0):
            self.assertAlmostEqual(stats.score_to_elo(stats.elo_to_score(elo)), elo, places=7)


class TestTrinomial(unittest.TestCase):
    def test_100_50_50(self):
        # 100 wins, 50 draws, 50 losses: score 0.625, Elo = -400 log10(0.6) = 88.74
        e = stats.trinomial(100, 50, 50)
        self.assertEqual(e.n, 200)
        self.assertAlmostEqual(e.score, 0.625, places=12)
        self.assertAlmostEqual(e.elo, 88.7394998465, places=8)
        # Hand computation: E[x^2] = (100 + 50/4) / 200 = 0.5625, so the
        # variance is 0.5625 - 0.625^2 = 0.171875.
        var = 0.171875
        self.assertAlmostEqual(e.variance, var, places=12)
        se = math.sqrt(var / 200)
        err = (elo_by_hand(0.625 + Z * se) - elo_by_hand(0.625 - Z * se)) / 2
        self.assertAlmostEqual(e.elo_error, err, places=9)
        self.assertAlmostEqual(e.elo_error, 42.843, places=3)
        self.assertAlmostEqual(e.nelo, 0.125 / math.sqrt(var) * K, places=9)
        self.assertAlmostEqual(e.nelo_error, Z * se / math.sqrt(var) * K, places=9)
        # LOS with variance: Phi(0.125 / se)
        self.assertAlmostEqual(e.los, 0.5 * (1 + math.erf(0.125 / se / math.sqrt(2))), places=12)

    def test_against_sample_statistics(self):
        rng = random.Random(7)
        for _ in range(20):
            w, d, l = rng.randint(0, 300), rng.randint(0, 300), rng.randint(1, 300)
            xs = [1.0] * w + [0.5] * d + [0.0] * l
            mu = statistics.fmean(xs)
            var = statistics.pvariance(xs)
            e = stats.trinomial(w, d, l)
            self.assertAlmostEqual(e.score, mu, places=12)
            self.assertAlmostEqual(e.variance, var, places=12)
            if 0 < mu < 1:
                self.assertAlmostEqual(e.elo, elo_by_hand(mu), places=8)

    def test_fastchess_reference(self):
        # fastchess elo_test.cpp: Stats(wins, losses, draws)
        e = stats.trinomial(76, 123, 89)
        self.assertTrue(approx_rel(e.nelo, -20.76, 0.01))
        self.assertTrue(approx_rel(e.nelo_error, 40.13, 0.01))
        self.assertAlmostEqual(e.los * 100, 15.53, places=2)
        e = stats.trinomial(136, 111, 96)
        self.assertTrue(approx_rel(e.nelo, 49.77, 0.01))
        self.assertTrue(approx_rel(e.nelo_error, 36.77, 0.01))
        self.assertTrue(approx_rel(e.elo, 40.70, 0.01))
        self.assertTrue(approx_rel(e.elo_error, 30.43, 0.01))
        self.assertAlmostEqual(e.los * 100, 99.60, places=2)
        e = stats.trinomial(34, 0, 356)
        self.assertTrue(approx_rel(e.nelo, -508.44, 0.01))
        self.assertTrue(approx_rel(e.nelo_error, 34.48, 0.01))

    def test_degenerate(self):
        e = stats.trinomial(0, 10, 0)
        self.assertEqual(e.elo, 0.0)
        self.assertEqual(e.elo_error, 0.0)
        self.assertEqual(e.los, 0.5)
        e = stats.trinomial(5, 0, 0)
        self.assertEqual(e.elo, math.inf)
        self.assertEqual(stats.trinomial(0, 0, 0).n, 0)


class TestPentanomial(unittest.TestCase):
    def test_against_sample_statistics(self):
        rng = random.Random(11)
        for _ in range(20):
            c = [rng.randint(0, 60) for _ in range(5)]
            c[2] += 1
            xs = []
            for score, n in zip((0.0, 0.25, 0.5, 0.75, 1.0), c):
                xs += [score] * n
            mu, var = statistics.fmean(xs), statistics.pvariance(xs)
            e = stats.pentanomial(c)
            self.assertAlmostEqual(e.score, mu, places=12)
            self.assertAlmostEqual(e.variance, var, places=12)
            se = math.sqrt(var / len(xs))
            if 0 < mu - Z * se and mu + Z * se < 1:
                err = (elo_by_hand(mu + Z * se) - elo_by_hand(mu - Z * se)) / 2
                self.assertAlmostEqual(e.elo_error, err, places=8)
            if var > 0:
                # pair-based nElo divides by sqrt(2 * var_pair)
                self.assertAlmostEqual(e.nelo, (mu - 0.5) / math.sqrt(2 * var) * K, places=8)

    def test_pair_formula_consistent_with_games(self):
        # Pairs made of two independent games: pentanomial variance (of pair/2)
        # is half the per-game variance, so both nElo estimates agree.
        pw, pd, pl = 0.3, 0.5, 0.2
        g = {1.0: pw, 0.5: pd, 0.0: pl}
        bins = [0.0] * 5
        for a, pa in g.items():
            for b, pb in g.items():
                bins[int(round((a + b) * 2))] += pa * pb
        scale = 1e6
        e_pair = stats.pentanomial([x * scale for x in bins])
        e_game = stats.trinomial(2 * pw * scale, 2 * pd * scale, 2 * pl * scale)  # same number of games
        self.assertAlmostEqual(e_pair.score, e_game.score, places=12)
        self.assertAlmostEqual(e_pair.variance * 2, e_game.variance, places=12)
        self.assertAlmostEqual(e_pair.nelo, e_game.nelo, places=8)
        self.assertAlmostEqual(e_pair.elo_error, e_game.elo_error, places=8)

    def test_fastchess_reference(self):
        e = stats.pentanomial(penta(34, 54, 31, 32, 64, 75))
        self.assertTrue(approx_rel(e.nelo, 57.94, 0.01))
        self.assertTrue(approx_rel(e.nelo_error, 28.28, 0.01))
        self.assertTrue(approx_rel(e.elo, 55.58, 0.01))
        self.assertTrue(approx_rel(e.elo_error, 27.65, 0.01))
        self.assertAlmostEqual(e.los * 100, 100.00, places=2)
        e = stats.pentanomial(penta(332, 433, 457, 41, 333, 334))
        self.assertTrue(approx_rel(e.nelo, -9.17, 0.01))
        self.assertTrue(approx_rel(e.nelo_error, 10.96, 0.01))
        self.assertTrue(approx_rel(e.elo, -8.64, 0.01))
        self.assertTrue(approx_rel(e.elo_error, 10.33, 0.01))
        self.assertAlmostEqual(e.los * 100, 5.05, places=2)
        e = stats.pentanomial(penta(7895, 8757, 5485, 200, 568, 9999))
        self.assertTrue(approx_rel(e.nelo, -19.01, 0.01))
        self.assertTrue(approx_rel(e.nelo_error, 2.65, 0.01))
        self.assertTrue(approx_rel(e.elo, -21.04, 0.01))
        self.assertTrue(approx_rel(e.elo_error, 2.95, 0.01))

    def test_bad_length(self):
        with self.assertRaises(ValueError):
            stats.pentanomial([1, 2, 3])


class TestLOS(unittest.TestCase):
    def test_classic_formula(self):
        self.assertEqual(stats.los_wl(10, 10), 0.5)
        self.assertEqual(stats.los_wl(0, 0), 0.5)
        # (W - L) / sqrt(W + L) = 2 standard deviations -> Phi(2)
        self.assertAlmostEqual(stats.los_wl(60, 40), 0.9772498680518208, places=12)
        self.assertAlmostEqual(stats.los_wl(40, 60), 1 - 0.9772498680518208, places=12)
        for w, l in ((3, 1), (120, 97), (5, 9)):
            self.assertAlmostEqual(stats.los_wl(w, l),
                                   0.5 * (1 + math.erf((w - l) / math.sqrt(2 * (w + l)))), places=14)


class TestGSPRT(unittest.TestCase):
    # fastchess sprt_test.cpp, trinomial: Stats(wins, losses, draws)
    FC_TRI = [
        ((36433, 36027, 68692), 0, 2, "normalized", 0.92),
        ((10871, 10650, 20431), -1.75, 0.25, "normalized", 2.30),
        ((21404, 21184, 40708), 0.5, 2.5, "logistic", -1.57),
        ((57433, 57030, 106593), 0, 2, "logistic", -2.59),
    ]
    # pentanomial: Stats(ll, ld, wl, dd, wd, ww)
    FC_PENTA = [
        ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
        ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
        ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
        ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
    ]
    # Note: fastchess' two degenerate cases (all draws; all WW pairs) expect
    # values close to the upper SPRT bound that its current code does not
    # produce either: with 16700 draws and nothing else the H0 (nElo 0) MLE is
    # the empirical distribution itself, so the LLR must be <= 0.  They are
    # replaced here by test_all_draws_nonpositive and the brute-force checks.

    def test_fastchess_reference_trinomial(self):
        for (w, l, d), e0, e1, model, ref in self.FC_TRI:
            llr = stats.llr_trinomial(w, d, l, e0, e1, model)
            self.assertTrue(approx_rel(llr, ref, 0.01), (w, d, l, model, llr, ref))

    def test_fastchess_reference_pentanomial(self):
        for c, e0, e1, model, ref in self.FC_PENTA:
            llr = stats.llr_pentanomial(penta(*c), e0, e1, model)
            self.assertTrue(approx_rel(llr, ref, 0.01), (c, model, llr, ref))

    def test_brute_force_trinomial_logistic(self):
        for (w, d, l), e0, e1 in (((120, 200, 90), 0, 5), ((30, 50, 41), -3, 3), ((1000, 800, 950), 0, 10)):
            n, _ = probs_of([l, d, w])
            ref = n * (bf_trinomial_logistic(w, d, l, stats.elo_to_score(e1))
                       - bf_trinomial_logistic(w, d, l, stats.elo_to_score(e0)))
            got = stats.llr_trinomial(w, d, l, e0, e1, "logistic")
            self.assertAlmostEqual(got, ref, delta=1e-6 * max(1.0, abs(ref)))

    def test_brute_force_trinomial_normalized(self):
        for (w, d, l), e0, e1 in (((120, 200, 90), 0, 5), ((30, 50, 41), -3, 3), ((1000, 800, 950), 0, 10)):
            n, _ = probs_of([l, d, w])
            ref = n * (bf_trinomial_normalized(w, d, l, e1 / K) - bf_trinomial_normalized(w, d, l, e0 / K))
            got = stats.llr_trinomial(w, d, l, e0, e1, "normalized")
            self.assertAlmostEqual(got, ref, delta=1e-6 * max(1.0, abs(ref)))

    def test_brute_force_pentanomial_logistic(self):
        for c, e0, e1 in (([10, 60, 150, 70, 12], 0, 5), ([3, 20, 40, 25, 2], -2, 4), ([0, 5, 9, 30, 8], 0, 5)):
            n, _ = probs_of(c)
            ref = n * (bf_penta_logistic(c, stats.elo_to_score(e1)) - bf_penta_logistic(c, stats.elo_to_score(e0)))
            got = stats.llr_pentanomial(c, e0, e1, "logistic")
            self.assertAlmostEqual(got, ref, delta=1e-7 * max(1.0, abs(ref)))

    def test_brute_force_pentanomial_normalized(self):
        for c, e0, e1 in (([10, 60, 150, 70, 12], 0, 5), ([0, 0, 0, 0, 104], 0, 5)):
            n, _ = probs_of(c)
            t0, t1 = math.sqrt(2) * e0 / K, math.sqrt(2) * e1 / K
            ref = n * (bf_penta_normalized(c, t1) - bf_penta_normalized(c, t0))
            got = stats.llr_pentanomial(c, e0, e1, "normalized")
            self.assertAlmostEqual(got, ref, delta=1e-6 * max(1.0, abs(ref)))

    def test_normalized_mle_satisfies_constraint_and_kkt(self):
        # The constrained MLE must have (mu - 1/2)/sigma = t and be a stationary
        # point of the Lagrangian: phat_i / p_i = l0 + l1 * dg/dp_i for all i.
        a = stats.PENTANOMIAL_SCORES
        _, ph = probs_of([40, 300, 700, 320, 35])
        for t in (-0.05, 0.0, 0.02, 0.1):
            p = stats.mle_normalized(a, ph, 0.5, t)
            self.assertAlmostEqual(sum(p), 1.0, places=12)
            mu = sum(x * y for x, y in zip(a, p))
            sig = math.sqrt(sum(y * (x - mu) ** 2 for x, y in zip(a, p)))
            self.assertAlmostEqual((mu - 0.5) / sig, t, places=9)
            # g(p) = mu - 1/2 - t sigma; dg/dp_i = a_i - t (a_i - mu)^2 / (2 sigma)
            grad_g = [x - t * (x - mu) ** 2 / (2 * sig) for x in a]
            lhs = [q / y for q, y in zip(ph, p)]
            # least squares fit lhs ~ l0 + l1 * grad_g, residual must vanish
            gm, lm = statistics.fmean(grad_g), statistics.fmean(lhs)
            l1 = (sum((g - gm) * (v - lm) for g, v in zip(grad_g, lhs))
                  / sum((g - gm) ** 2 for g in grad_g))
            l0 = lm - l1 * gm
            for g, v in zip(grad_g, lhs):
                self.assertAlmostEqual(v, l0 + l1 * g, places=8)

    def test_gaussian_approximation(self):
        # For large samples near the hypotheses the GSPRT is close to the
        # Gaussian LLR with known variance: N (m1 - m0)(xbar - (m0 + m1)/2) / var.
        c = [3000, 30000, 60000, 31000, 3200]
        e = stats.pentanomial(c)
        n = sum(c)
        s0, s1 = stats.elo_to_score(0), stats.elo_to_score(5)
        approx = n * (s1 - s0) * (e.score - (s0 + s1) / 2) / e.variance
        self.assertTrue(approx_rel(stats.llr_pentanomial(c, 0, 5, "logistic"), approx, 0.02))
        # normalized: t = (mu - 1/2)/sigma_pair, LLR ~ N (t1 - t0)(t_hat - (t0 + t1)/2)
        t0, t1 = 0.0, math.sqrt(2) * 5 / K
        that = (e.score - 0.5) / math.sqrt(e.variance)
        approx = n * (t1 - t0) * (that - (t0 + t1) / 2)
        self.assertTrue(approx_rel(stats.llr_pentanomial(c, 0, 5, "normalized"), approx, 0.02))

    def test_mirror_symmetry(self):
        # Swapping wins and losses and mirroring the hypotheses negates the LLR.
        for model in ("normalized", "logistic"):
            a = stats.llr_trinomial(130, 200, 100, -1, 4, model)
            b = stats.llr_trinomial(100, 200, 130, -4, 1, model)
            self.assertAlmostEqual(a, -b, places=7)
            c = [7, 50, 120, 60, 9]
            a = stats.llr_pentanomial(c, 0, 3, model)
            b = stats.llr_pentanomial(c[::-1], -3, 0, model)
            self.assertAlmostEqual(a, -b, places=7)

    def test_all_draws_nonpositive(self):
        # H0 (nElo 0) fits a symmetric sample exactly, so the LLR cannot be positive.
        self.assertLessEqual(stats.llr_trinomial(0, 16700, 0, 0, 5), 0.0)
        self.assertLessEqual(stats.llr_pentanomial([0, 0, 5000, 0, 0], 0, 5), 0.0)

    def test_monotone_in_evidence(self):
        llrs = [stats.llr_pentanomial([10, 60, 150, 60 + k, 10], 0, 5) for k in range(0, 60, 10)]
        self.assertEqual(llrs, sorted(llrs))
        self.assertLess(llrs[0], 0.0)
        self.assertGreater(llrs[-1], 0.0)


class TestSPRTBounds(unittest.TestCase):
    def test_bounds(self):
        s = stats.SPRT(0, 5, 0.05, 0.05)
        self.assertAlmostEqual(s.lower, math.log(0.05 / 0.95), places=14)
        self.assertAlmostEqual(s.upper, math.log(0.95 / 0.05), places=14)
        self.assertAlmostEqual(s.upper, 2.9444389791664403, places=12)
        s = stats.SPRT(0, 5, 0.05, 0.10)
        self.assertAlmostEqual(s.lower, -2.2512917986064953, places=12)
        self.assertAlmostEqual(s.upper, 2.890371757896165, places=12)

    def test_decision(self):
        s = stats.SPRT(0, 5)
        self.assertIsNone(s.decision(0.0))
        self.assertIsNone(s.decision(2.9))
        self.assertIsNone(s.decision(-2.9))
        self.assertEqual(s.decision(s.upper), "H1")
        self.assertEqual(s.decision(3.5), "H1")
        self.assertEqual(s.decision(s.lower), "H0")
        self.assertEqual(s.decision(-3.5), "H0")

    def test_crossing_on_data(self):
        s = stats.SPRT(0, 5)
        good = [20, 150, 500, 250, 40]          # clearly positive
        self.assertEqual(s.decision(s.llr(penta=good)), "H1")
        self.assertEqual(s.decision(s.llr(penta=good[::-1])), "H0")
        self.assertIsNone(s.decision(s.llr(penta=[2, 10, 30, 11, 2])))
        self.assertEqual(s.llr(), 0.0)
        # trinomial fallback when no pair is complete
        self.assertAlmostEqual(s.llr(penta=[0] * 5, wdl=(30, 40, 20)),
                               stats.llr_trinomial(30, 40, 20, 0, 5), places=12)

    def test_sequential_stops(self):
        # Feed pairs of a strong improvement one at a time: the test must stop
        # with H1, and once stopped the decision must not be undone by the
        # earlier data (the LLR at the stopping time is beyond the bound).
        rng = random.Random(3)
        dist = [0.02, 0.15, 0.45, 0.30, 0.08]   # expected score ~0.57, about +50 Elo
        s = stats.SPRT(0, 10, model="logistic")
        c = [0] * 5
        decision = None
        previous_llr = 0.0
        for n in range(1, 5000):
            r = rng.random()
            acc = 0.0
            for i, p in enumerate(dist):
                acc += p
                if r < acc:
                    c[i] += 1
                    break
            llr = s.llr(penta=c)
            decision = s.decision(llr)
            if decision:
                break
            previous_llr = llr
        self.assertEqual(decision, "H1")
        # The bound by hand: ln((1 - beta) / alpha) = ln(19) at 5 % each; the
        # test stops at the first pair that crosses it.
        self.assertAlmostEqual(s.upper, math.log(19), places=12)
        self.assertLess(previous_llr, math.log(19))
        self.assertGreaterEqual(llr, math.log(19))
        self.assertLess(n, 2000)

    def test_invalid(self):
        with self.assertRaises(ValueError):
            stats.SPRT(5, 0)
        with self.assertRaises(ValueError):
            stats.SPRT(0, 5, alpha=0.6, beta=0.5)
        with self.assertRaises(ValueError):
            stats.SPRT(0, 5, model="bayesian")


if __name__ == "__main__":
    unittest.main()
