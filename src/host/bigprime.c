/* src/host/bigprime.c — the big prime field Z/pZ, p = r^k + 1, r = 2^w ± 2^u: host reference
 * (see hepa/bigprime.h for the representation and the contracts).
 *
 * Every digit-level operation (add, sub, neg, multiply by r^i, the digit multiplication) first
 * writes its result as k signed digit sums t_0..t_{k-1} with value Σ t_m·r^m, then one routine,
 * bp_normalize, turns that into the canonical element: a signed carry chain in base r (each
 * division by r done with shifts, using r = 2^w ± 2^u), after which the carry c out of the top
 * digit is worth c·r^k ≡ -c and is folded back into the bottom. */
#include <stdlib.h>
#include <string.h>

#include "hepa/bigprime.h"

_Static_assert(sizeof(unsigned long) == 8, "GMP's *_ui functions must take 64-bit words");

typedef __int128 i128;
typedef unsigned __int128 u128;

struct hepa_bp_field {
    unsigned w, u, k, bits, v2;
    int sign;
    uint64_t r;
    mpz_t p;    /* r^k + 1 */
    mpz_t rz;   /* r */
    mpz_t root; /* W: a primitive 2^v2-th root of unity with W^(2^v2 / K) = r */
};

/* ---- field creation -------------------------------------------------------------------------- */

static const struct {
    unsigned w, u, k;
} named[HEPA_BP_PRIME_COUNT] = {
    [HEPA_BP_P3] = {63, 34, 8},      [HEPA_BP_P4] = {62, 36, 16},
    [HEPA_BP_W59_K8] = {59, 16, 8},  [HEPA_BP_W58_K16] = {58, 10, 16},
    [HEPA_BP_W56_K32] = {56, 21, 32}, [HEPA_BP_W47_K64] = {47, 32, 64},
};

static int is_pow2(size_t n) { return n && !(n & (n - 1)); }

static unsigned log2_pow2(size_t n) {
    unsigned l = 0;
    while (((size_t)1 << l) < n) ++l;
    return l;
}

/* Fixes W. Any quadratic non-residue c gives W0 = c^((p-1)/2^v2) of order exactly 2^v2 (since
 * W0^(2^(v2-1)) = c^((p-1)/2) = -1). W0^(2^v2/K) is then a primitive K-th root, and the primitive
 * K-th roots are exactly r^j for odd j (r has order K = 2k because r^k = -1), so W0^(2^v2/K) = r^j
 * for one odd j < K. With j' = j^(-1) mod K, W = W0^(j') has order 2^v2 still (j' is odd) and
 * W^(2^v2/K) = r^(j·j') = r. Returns 0 on success. */
static int field_fix_root(hepa_bp_field *f) {
    const unsigned K = 2 * f->k;
    int ok = 0;
    mpz_t c, e, w0, t, rj;
    mpz_inits(c, e, w0, t, rj, NULL);
    mpz_set_ui(c, 2);
    while (mpz_jacobi(c, f->p) != -1) mpz_add_ui(c, c, 1); /* half the residues: ends quickly */
    mpz_sub_ui(e, f->p, 1);
    mpz_fdiv_q_2exp(e, e, f->v2);
    mpz_powm(w0, c, e, f->p);
    mpz_set_ui(e, 0);
    mpz_setbit(e, f->v2 - log2_pow2(K)); /* K | 2^v2: checked by the caller */
    mpz_powm(t, w0, e, f->p);
    mpz_set(rj, f->rz); /* r^j, j odd */
    unsigned j = 1;
    for (; j < K; j += 2) {
        if (mpz_cmp(rj, t) == 0) break;
        mpz_mul(rj, rj, f->rz);
        mpz_mul(rj, rj, f->rz);
        mpz_mod(rj, rj, f->p);
    }
    if (j < K) {
        unsigned jinv = 1;
        while ((jinv * j) % K != 1) jinv += 2;
        mpz_powm_ui(f->root, w0, jinv, f->p);
        ok = 1;
    }
    mpz_clears(c, e, w0, t, rj, NULL);
    return ok ? 0 : -1;
}

static hepa_status field_create(hepa_bp_field **out, unsigned w, unsigned u, int sign, unsigned k,
                                int check_prime) {
    if (!out || (sign != 1 && sign != -1) || w > 63 || u >= w || k < 2 || k > HEPA_BP_MAX_K ||
        !is_pow2(k))
        return HEPA_ERR_INVALID_ARGUMENT;
    const uint64_t r = sign > 0 ? (UINT64_C(1) << w) + (UINT64_C(1) << u)
                                : (UINT64_C(1) << w) - (UINT64_C(1) << u);
    if (r < 2) return HEPA_ERR_INVALID_ARGUMENT;
    mpz_t p;
    mpz_init_set_ui(p, r);
    mpz_pow_ui(p, p, k);
    mpz_add_ui(p, p, 1);
    if (check_prime && !mpz_probab_prime_p(p, 30)) {
        mpz_clear(p);
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    hepa_bp_field *f = malloc(sizeof *f);
    if (!f) {
        mpz_clear(p);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    f->w = w;
    f->u = u;
    f->k = k;
    f->sign = sign;
    f->r = r;
    mpz_init_set(f->p, p);
    mpz_clear(p);
    mpz_init_set_ui(f->rz, r);
    mpz_init(f->root);
    f->bits = (unsigned)mpz_sizeinbase(f->p, 2);
    mpz_t pm1;
    mpz_init(pm1);
    mpz_sub_ui(pm1, f->p, 1);
    f->v2 = (unsigned)mpz_scan1(pm1, 0); /* = u·k; >= log2(K) whenever p is prime (u >= 1) */
    mpz_clear(pm1);
    if (f->v2 < log2_pow2(2 * (size_t)k) || field_fix_root(f) != 0) {
        /* only reachable for a composite p (check_prime == 0 is used for known primes only) */
        hepa_bp_field_destroy(f);
        return HEPA_ERR_INVALID_ARGUMENT;
    }
    *out = f;
    return HEPA_OK;
}

hepa_status hepa_bp_field_create(hepa_bp_field **out, unsigned w, unsigned u, int sign,
                                 unsigned k) {
    return field_create(out, w, u, sign, k, 1);
}

hepa_status hepa_bp_field_create_named(hepa_bp_field **out, hepa_bp_prime which) {
    if (!out || (unsigned)which >= HEPA_BP_PRIME_COUNT) return HEPA_ERR_INVALID_ARGUMENT;
    return field_create(out, named[which].w, named[which].u, 1, named[which].k, 0);
}

void hepa_bp_field_destroy(hepa_bp_field *f) {
    if (!f) return;
    mpz_clears(f->p, f->rz, f->root, NULL);
    free(f);
}

unsigned hepa_bp_field_k(const hepa_bp_field *f) { return f ? f->k : 0; }
unsigned hepa_bp_field_K(const hepa_bp_field *f) { return f ? 2 * f->k : 0; }
uint64_t hepa_bp_field_r(const hepa_bp_field *f) { return f ? f->r : 0; }
unsigned hepa_bp_field_w(const hepa_bp_field *f) { return f ? f->w : 0; }
unsigned hepa_bp_field_u(const hepa_bp_field *f) { return f ? f->u : 0; }
int hepa_bp_field_sign(const hepa_bp_field *f) { return f ? f->sign : 0; }
unsigned hepa_bp_field_bits(const hepa_bp_field *f) { return f ? f->bits : 0; }
unsigned hepa_bp_field_v2(const hepa_bp_field *f) { return f ? f->v2 : 0; }

hepa_status hepa_bp_field_prime(const hepa_bp_field *f, mpz_t out) {
    if (!f || !out) return HEPA_ERR_INVALID_ARGUMENT;
    mpz_set(out, f->p);
    return HEPA_OK;
}

/* ---- digits ---------------------------------------------------------------------------------- */

static int bp_valid(const hepa_bp_field *f, const uint64_t *x) {
    const unsigned k = f->k;
    const uint64_t r = f->r;
    if (x[k - 1] == r) { /* p - 1: every other digit must be 0 */
        for (unsigned m = 0; m + 1 < k; ++m)
            if (x[m]) return 0;
        return 1;
    }
    for (unsigned m = 0; m < k; ++m)
        if (x[m] >= r) return 0;
    return 1;
}

/* Floor division by r without dividing: returns q = floor(v / r) and sets *rem = v - q·r in
 * [0, r). Requires |v| < 2^127 - 2^(2w+1). Each round takes e = floor(v / 2^w) and subtracts
 * e·r = e·2^w + sign·e·2^u, i.e. v <- (v mod 2^w) - sign·e·2^u: the quotient estimate e is off by
 * a factor 1 ± 2^(u-w), so |v| shrinks by about 2^(w-u) per round until it is a remainder.
 * (v >> w on a negative i128 is an arithmetic shift — floor — in GNU C.) */
static i128 bp_divrem(const hepa_bp_field *f, i128 v, uint64_t *rem) {
    const unsigned w = f->w;
    const i128 r = (i128)f->r, mask = ((i128)1 << w) - 1, two_u = (i128)1 << f->u;
    i128 q = 0;
    if (f->sign > 0) { /* r > 2^w: every v in [0, r) is done, including [2^w, r) */
        while (v < 0 || v >= r) {
            const i128 e = v >> w;
            v = (v & mask) - e * two_u;
            q += e;
        }
    } else { /* r < 2^w: stop in [0, 2^w), then at most one r too many */
        while (v < 0 || v > mask) {
            const i128 e = v >> w;
            v = (v & mask) + e * two_u;
            q += e;
        }
        if (v >= r) {
            v -= r;
            ++q;
        }
    }
    *rem = (uint64_t)v;
    return q;
}

/* P = h·r + l with 0 <= l < r, for P <= r^2 (< 2^128, a digit product): the first round of
 * bp_divrem in unsigned arithmetic (P may not fit an i128), the rest signed: after it
 * |v| < 2^(2w+2) <= 2^127 (e < 2^(w+2) and e·2^u < 2^(2w+1)). h <= r. */
static void bp_split(const hepa_bp_field *f, u128 P, uint64_t *h, uint64_t *l) {
    const unsigned w = f->w;
    const u128 e = P >> w;
    const i128 low = (i128)(P & (((u128)1 << w) - 1));
    const i128 eu = (i128)e * ((i128)1 << f->u);
    const i128 v = f->sign > 0 ? low - eu : low + eu;
    *h = (uint64_t)((i128)e + bp_divrem(f, v, l));
}

/* z has k digits in [0, r) with value L; writes the canonical form of L - c (mod p), for
 * c in [-2, 2] (c is a carry out of the top digit: c·r^k ≡ -c). */
static void bp_fold_small(const hepa_bp_field *f, uint64_t *z, int c) {
    const unsigned k = f->k;
    const uint64_t r = f->r;
    if (c > 0) {
        int small = z[0] < (uint64_t)c; /* L < c ? */
        for (unsigned m = 1; small && m < k; ++m) small = z[m] == 0;
        if (small) { /* L - c in {-2, -1}: + p = r^k + 1 gives r^k - 1 or r^k */
            if (z[0] + 1 == (uint64_t)c) {
                memset(z, 0, (k - 1) * sizeof *z); /* r^k = p - 1, the special form */
                z[k - 1] = r;
            } else {
                for (unsigned m = 0; m < k; ++m) z[m] = r - 1; /* r^k - 1 = p - 2 */
            }
            return;
        }
        uint64_t b = (uint64_t)c; /* borrow chain; stops below the top since L >= c */
        for (unsigned m = 0; m < k && b; ++m) {
            if (z[m] >= b) {
                z[m] -= b;
                b = 0;
            } else {
                z[m] = z[m] + (r - b); /* z[m] < b <= 2 <= r */
                b = 1;
            }
        }
    } else if (c < 0) {
        uint64_t a = (uint64_t)(-c); /* carry chain */
        for (unsigned m = 0; m < k && a; ++m) {
            if (z[m] < r - a) {
                z[m] += a;
                a = 0;
            } else {
                z[m] -= r - a;
                a = 1;
            }
        }
        if (a) {
            /* carried out: L + |c| = r^k + L' with L' = z[0] in {0, 1}, and r^k + L' ≡ L' - 1:
             * L' = 0 gives -1 = p - 1 (special form), L' = 1 gives 0 */
            if (z[0] == 0)
                z[k - 1] = r;
            else
                z[0] = 0;
        }
    }
}

/* z = canonical form of Σ t_m·r^m (mod p), for k signed digit sums |t_m| < 2^120 (t is
 * overwritten). A base-r carry chain leaves digits in [0, r) and a carry c out of the top,
 * c·r^k ≡ -c; while |c| > 2 (only after a multiplication's big sums, or for tiny r) it is
 * subtracted from the bottom digit and the chain runs again, which leaves |c| <= 1; the last
 * small carry is folded in by bp_fold_small. */
static void bp_normalize(const hepa_bp_field *f, uint64_t *z, i128 *t) {
    const unsigned k = f->k;
    i128 c;
    for (;;) {
        c = 0;
        for (unsigned m = 0; m < k; ++m) {
            uint64_t d;
            c = bp_divrem(f, t[m] + c, &d);
            t[m] = d;
        }
        if (c >= -2 && c <= 2) break;
        t[0] -= c;
    }
    for (unsigned m = 0; m < k; ++m) z[m] = (uint64_t)t[m];
    bp_fold_small(f, z, (int)c);
}

/* ---- raw arithmetic -------------------------------------------------------------------------- */

void _hepa_bp_add(const hepa_bp_field *f, uint64_t *z, const uint64_t *x, const uint64_t *y) {
    i128 t[HEPA_BP_MAX_K];
    for (unsigned m = 0; m < f->k; ++m) t[m] = (i128)x[m] + (i128)y[m]; /* in [0, 2r] */
    bp_normalize(f, z, t); /* carry out of the top in {0, 1, 2}: subtracted at the bottom */
}

void _hepa_bp_sub(const hepa_bp_field *f, uint64_t *z, const uint64_t *x, const uint64_t *y) {
    i128 t[HEPA_BP_MAX_K];
    for (unsigned m = 0; m < f->k; ++m) t[m] = (i128)x[m] - (i128)y[m]; /* in [-r, r] */
    bp_normalize(f, z, t); /* borrow out of the top (carry -1): added at the bottom */
}

void _hepa_bp_neg(const hepa_bp_field *f, uint64_t *z, const uint64_t *x) {
    i128 t[HEPA_BP_MAX_K];
    for (unsigned m = 0; m < f->k; ++m) t[m] = -(i128)x[m];
    bp_normalize(f, z, t);
}

void _hepa_bp_mul_rpow(const hepa_bp_field *f, uint64_t *z, const uint64_t *x, unsigned i) {
    const unsigned k = f->k;
    const int negate = i >= k; /* r^i = -r^(i-k) */
    if (negate) i -= k;
    /* x·r^i = Σ_{m >= i} x_{m-i} r^m - Σ_{m < i} x_{m+k-i} r^m: the digits that pass r^k come
     * back at the bottom with a minus sign */
    i128 t[HEPA_BP_MAX_K];
    for (unsigned m = 0; m < k; ++m) {
        const i128 d = m >= i ? (i128)x[m - i] : -(i128)x[m + k - i];
        t[m] = negate ? -d : d;
    }
    bp_normalize(f, z, t);
}

void _hepa_bp_mul_digits(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                         const uint64_t *y) {
    const unsigned k = f->k;
    /* Σ_i x_i T^i · Σ_j y_j T^j mod T^k + 1, each x_i·y_j = h·r + l contributing l at T^(i+j) and
     * h at T^(i+j+1), negated where the exponent reaches k. |t_m| <= 2k·r < 2^73. (The seed sums
     * the full products per position first and splits each sum into three base-r digits; splitting
     * every product into two keeps each term below r and needs no 192-bit sums.) */
    i128 t[HEPA_BP_MAX_K];
    for (unsigned m = 0; m < k; ++m) t[m] = 0;
    for (unsigned i = 0; i < k; ++i) {
        if (!x[i]) continue;
        for (unsigned j = 0; j < k; ++j) {
            uint64_t h, l;
            bp_split(f, (u128)x[i] * y[j], &h, &l); /* <= r·r: at most one factor is r */
            const unsigned m = i + j;
            if (m < k)
                t[m] += l;
            else
                t[m - k] -= l;
            if (m + 1 < k)
                t[m + 1] += h;
            else
                t[m + 1 - k] -= h;
        }
    }
    bp_normalize(f, z, t);
}

/* out = Σ x_m r^m (no validation). */
static void bp_get_mpz(const hepa_bp_field *f, mpz_t out, const uint64_t *x) {
    mpz_set_ui(out, x[f->k - 1]);
    for (unsigned m = f->k - 1; m-- > 0;) {
        mpz_mul(out, out, f->rz);
        mpz_add_ui(out, out, x[m]);
    }
}

/* x = the canonical element of v mod p; tmp is scratch (may not alias v). */
static void bp_set_mpz(const hepa_bp_field *f, uint64_t *x, const mpz_t v, mpz_t tmp) {
    const unsigned k = f->k;
    mpz_mod(tmp, v, f->p); /* in [0, p) for any sign of v */
    mpz_add_ui(tmp, tmp, 1);
    if (mpz_cmp(tmp, f->p) == 0) { /* v ≡ p - 1 = r^k */
        memset(x, 0, (k - 1) * sizeof *x);
        x[k - 1] = f->r;
        return;
    }
    mpz_sub_ui(tmp, tmp, 1);
    for (unsigned m = 0; m < k; ++m) x[m] = mpz_fdiv_q_ui(tmp, tmp, f->r); /* remainder */
}

void _hepa_bp_mul(const hepa_bp_field *f, uint64_t *z, const uint64_t *x, const uint64_t *y) {
    mpz_t a, b;
    mpz_inits(a, b, NULL);
    bp_get_mpz(f, a, x);
    bp_get_mpz(f, b, y);
    mpz_mul(a, a, b);
    bp_set_mpz(f, z, a, b);
    mpz_clears(a, b, NULL);
}

void _hepa_bp_inv(const hepa_bp_field *f, uint64_t *z, const uint64_t *x) {
    mpz_t a, b;
    mpz_inits(a, b, NULL);
    bp_get_mpz(f, a, x);
    if (!mpz_invert(a, a, f->p)) mpz_set_ui(a, 0); /* x = 0 */
    bp_set_mpz(f, z, a, b);
    mpz_clears(a, b, NULL);
}

/* ---- checked arithmetic and conversions ------------------------------------------------------ */

int hepa_bp_is_valid(const hepa_bp_field *f, const uint64_t *x) {
    return f && x && bp_valid(f, x);
}

hepa_status hepa_bp_from_mpz(const hepa_bp_field *f, uint64_t *x, const mpz_t v) {
    if (!f || !x || !v) return HEPA_ERR_INVALID_ARGUMENT;
    mpz_t tmp;
    mpz_init(tmp);
    bp_set_mpz(f, x, v, tmp);
    mpz_clear(tmp);
    return HEPA_OK;
}

hepa_status hepa_bp_to_mpz(const hepa_bp_field *f, mpz_t out, const uint64_t *x) {
    if (!f || !out || !x || !bp_valid(f, x)) return HEPA_ERR_INVALID_ARGUMENT;
    bp_get_mpz(f, out, x);
    return HEPA_OK;
}

hepa_status hepa_bp_add(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                        const uint64_t *y) {
    if (!f || !z || !x || !y || !bp_valid(f, x) || !bp_valid(f, y))
        return HEPA_ERR_INVALID_ARGUMENT;
    _hepa_bp_add(f, z, x, y);
    return HEPA_OK;
}

hepa_status hepa_bp_sub(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                        const uint64_t *y) {
    if (!f || !z || !x || !y || !bp_valid(f, x) || !bp_valid(f, y))
        return HEPA_ERR_INVALID_ARGUMENT;
    _hepa_bp_sub(f, z, x, y);
    return HEPA_OK;
}

hepa_status hepa_bp_neg(const hepa_bp_field *f, uint64_t *z, const uint64_t *x) {
    if (!f || !z || !x || !bp_valid(f, x)) return HEPA_ERR_INVALID_ARGUMENT;
    _hepa_bp_neg(f, z, x);
    return HEPA_OK;
}

hepa_status hepa_bp_mul_rpow(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                             unsigned i) {
    if (!f || !z || !x || i >= 2 * f->k || !bp_valid(f, x)) return HEPA_ERR_INVALID_ARGUMENT;
    _hepa_bp_mul_rpow(f, z, x, i);
    return HEPA_OK;
}

hepa_status hepa_bp_mul(const hepa_bp_field *f, uint64_t *z, const uint64_t *x,
                        const uint64_t *y) {
    if (!f || !z || !x || !y || !bp_valid(f, x) || !bp_valid(f, y))
        return HEPA_ERR_INVALID_ARGUMENT;
    _hepa_bp_mul(f, z, x, y);
    return HEPA_OK;
}

hepa_status hepa_bp_inv(const hepa_bp_field *f, uint64_t *z, const uint64_t *x) {
    if (!f || !z || !x || !bp_valid(f, x)) return HEPA_ERR_INVALID_ARGUMENT;
    int zero = 1;
    for (unsigned m = 0; m < f->k; ++m) zero &= x[m] == 0;
    if (zero) return HEPA_ERR_INVALID_ARGUMENT;
    _hepa_bp_inv(f, z, x);
    return HEPA_OK;
}

/* ---- roots of unity and FFT ------------------------------------------------------------------ */

/* Checks that N is a power of two (INVALID_ARGUMENT otherwise) such that N·2^extra_log divides
 * 2^v2 (UNSUPPORTED otherwise), and that the scratch of the transforms (up to 3N elements of k
 * words) has a byte count that fits a size_t (INVALID_ARGUMENT: no such array can exist). */
static hepa_status check_size(const hepa_bp_field *f, size_t N, unsigned extra_log) {
    if (!is_pow2(N)) return HEPA_ERR_INVALID_ARGUMENT;
    if (log2_pow2(N) + extra_log > f->v2) return HEPA_ERR_UNSUPPORTED;
    if (N > SIZE_MAX / 4 / sizeof(uint64_t) / f->k) return HEPA_ERR_INVALID_ARGUMENT;
    return HEPA_OK;
}

/* out = ω_(2^lg) = W^(2^(v2 - lg)), lg <= v2. */
static void root_mpz(const hepa_bp_field *f, mpz_t out, unsigned lg) {
    mpz_t e;
    mpz_init(e);
    mpz_setbit(e, f->v2 - lg);
    mpz_powm(out, f->root, e, f->p);
    mpz_clear(e);
}

hepa_status hepa_bp_root_of_unity(const hepa_bp_field *f, uint64_t *w, size_t N) {
    if (!f || !w || !is_pow2(N)) return HEPA_ERR_INVALID_ARGUMENT;
    if (log2_pow2(N) > f->v2) return HEPA_ERR_UNSUPPORTED;
    mpz_t a, tmp;
    mpz_inits(a, tmp, NULL);
    root_mpz(f, a, log2_pow2(N));
    bp_set_mpz(f, w, a, tmp);
    mpz_clears(a, tmp, NULL);
    return HEPA_OK;
}

/* x (element) = ω^(±1) as digits, or 1/N (scale) — small helpers for the transforms. */
static void elem_root(const hepa_bp_field *f, uint64_t *x, unsigned lg, int inverse) {
    mpz_t a, tmp;
    mpz_inits(a, tmp, NULL);
    root_mpz(f, a, lg);
    if (inverse) mpz_invert(a, a, f->p);
    bp_set_mpz(f, x, a, tmp);
    mpz_clears(a, tmp, NULL);
}

static void elem_inv_n(const hepa_bp_field *f, uint64_t *x, size_t N) {
    mpz_t a, tmp;
    mpz_inits(a, tmp, NULL);
    mpz_set_ui(a, N);
    mpz_invert(a, a, f->p);
    bp_set_mpz(f, x, a, tmp);
    mpz_clears(a, tmp, NULL);
}

static void elem_one(const hepa_bp_field *f, uint64_t *x) {
    memset(x, 0, f->k * sizeof *x);
    x[0] = 1;
}

/* tw[m] = ω^m for m < N/2 (ω of order N, or its inverse). */
static void fill_twiddles(const hepa_bp_field *f, uint64_t *tw, size_t N, int inverse) {
    const unsigned k = f->k;
    if (N < 2) return;
    uint64_t om[HEPA_BP_MAX_K];
    elem_root(f, om, log2_pow2(N), inverse);
    elem_one(f, tw);
    for (size_t m = 1; m < N / 2; ++m) _hepa_bp_mul(f, tw + m * k, tw + (m - 1) * k, om);
}

/* In place: X_j = Σ_i x_i ω^(ij), tw from fill_twiddles. Bit-reversal, then radix-2
 * decimation-in-time: at span h, the pairs (a, b) at distance h become (a + ω^s·b, a - ω^s·b)
 * with s = (position in the block)·(N / 2h). */
static void fft_core(const hepa_bp_field *f, uint64_t *x, size_t N, const uint64_t *tw) {
    const unsigned k = f->k, lg = log2_pow2(N);
    uint64_t t[HEPA_BP_MAX_K];
    for (size_t i = 0; i < N; ++i) {
        size_t j = 0;
        for (unsigned b = 0; b < lg; ++b) j |= ((i >> b) & 1) << (lg - 1 - b);
        if (i < j) {
            memcpy(t, x + i * k, k * sizeof *t);
            memcpy(x + i * k, x + j * k, k * sizeof *t);
            memcpy(x + j * k, t, k * sizeof *t);
        }
    }
    for (size_t h = 1; h < N; h *= 2) {
        const size_t stride = N / (2 * h);
        for (size_t blk = 0; blk < N; blk += 2 * h)
            for (size_t j = 0; j < h; ++j) {
                uint64_t *a = x + (blk + j) * k, *b = x + (blk + j + h) * k;
                _hepa_bp_mul(f, t, b, tw + j * stride * k);
                _hepa_bp_sub(f, b, a, t);
                _hepa_bp_add(f, a, a, t);
            }
    }
}

static int all_valid(const hepa_bp_field *f, const uint64_t *x, size_t N) {
    for (size_t j = 0; j < N; ++j)
        if (!bp_valid(f, x + j * f->k)) return 0;
    return 1;
}

hepa_status hepa_bp_fft(const hepa_bp_field *f, uint64_t *x, size_t N, int inverse) {
    if (!f || !x) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status st = check_size(f, N, 0);
    if (st != HEPA_OK) return st;
    if (!all_valid(f, x, N)) return HEPA_ERR_INVALID_ARGUMENT;
    const unsigned k = f->k;
    uint64_t *tw = malloc((N / 2 + 1) * k * sizeof *tw);
    if (!tw) return HEPA_ERR_OUT_OF_MEMORY;
    fill_twiddles(f, tw, N, inverse);
    fft_core(f, x, N, tw);
    if (inverse) {
        uint64_t s[HEPA_BP_MAX_K];
        elem_inv_n(f, s, N);
        for (size_t j = 0; j < N; ++j) _hepa_bp_mul(f, x + j * k, x + j * k, s);
    }
    free(tw);
    return HEPA_OK;
}

hepa_status hepa_bp_poly_mul(const hepa_bp_field *f, uint64_t *out, const uint64_t *a,
                             const uint64_t *b, size_t N, int negacyclic) {
    if (!f || !out || !a || !b) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_status st = check_size(f, N, negacyclic ? 1 : 0);
    if (st != HEPA_OK) return st;
    if (!all_valid(f, a, N) || !all_valid(f, b, N)) return HEPA_ERR_INVALID_ARGUMENT;
    const unsigned k = f->k;
    const size_t words = N * k, half = (N / 2 + 1) * k;
    uint64_t *A = malloc((2 * words + 2 * half) * sizeof *A);
    if (!A) return HEPA_ERR_OUT_OF_MEMORY;
    uint64_t *B = A + words, *twf = B + words, *twi = twf + half;
    memcpy(A, a, words * sizeof *A); /* copies first: out may alias a or b */
    memcpy(B, b, words * sizeof *B);
    fill_twiddles(f, twf, N, 0);
    fill_twiddles(f, twi, N, 1);
    uint64_t psi[HEPA_BP_MAX_K], pw[HEPA_BP_MAX_K];
    if (negacyclic) {
        /* a'_j = a_j·ψ^j is a'(x) = a(ψx); since (ψx)^N = -x^N, reducing mod x^N + 1 before the
         * twist is reducing mod x^N - 1 after it: the twisted product is cyclic */
        elem_root(f, psi, log2_pow2(N) + 1, 0);
        elem_one(f, pw);
        for (size_t j = 0; j < N; ++j) {
            _hepa_bp_mul(f, A + j * k, A + j * k, pw);
            _hepa_bp_mul(f, B + j * k, B + j * k, pw);
            _hepa_bp_mul(f, pw, pw, psi);
        }
    }
    fft_core(f, A, N, twf);
    fft_core(f, B, N, twf);
    for (size_t j = 0; j < N; ++j) _hepa_bp_mul(f, A + j * k, A + j * k, B + j * k);
    fft_core(f, A, N, twi);
    elem_inv_n(f, pw, N); /* pw = N^(-1)·ψ^(-j): scaling and untwisting in one product */
    if (negacyclic) elem_root(f, psi, log2_pow2(N) + 1, 1);
    for (size_t j = 0; j < N; ++j) {
        _hepa_bp_mul(f, A + j * k, A + j * k, pw);
        if (negacyclic) _hepa_bp_mul(f, pw, pw, psi);
    }
    memcpy(out, A, words * sizeof *out);
    free(A);
    return HEPA_OK;
}
