/* bench/experiments/fuzz_diff.c - differential fuzz of the CUDA backend against the CPU one:
 * random ring shapes (n = 2^4 .. 2^16, L + K moduli of 30 to 62 bits, K = 1..4, digit size 0..4),
 * random calls (add, sub, neg, mul, mul_scalar, NTT both ways, tensor, rescale, rescale_pair,
 * drop, automorphism, keyswitch, keyswitch_add, mul_relin, with outputs on inputs and squaring)
 * on a CPU ring and a CUDA ring with the same moduli, keys from one seed on both. Outputs are
 * poisoned with different canonical words on each side, so an unwritten word shows. Every status,
 * every output word and domain must agree, and operands must be untouched on both sides after an
 * error. Exit status 1 on any difference (each printed with the shape).
 *
 *   cc -O2 -I include -o fuzz_diff bench/experiments/fuzz_diff.c -L build -lhepa \
 *      -Wl,-rpath,build && ./fuzz_diff 120 1        (seconds, seed)
 *
 * FZD_CPU=1 runs both sides on the CPU backend (checks the harness itself; with ASan it ran
 * clean). H100, 2e03554's library: seeds 1 and 2, 270 s, 282 shapes, 3238 calls, no difference
 * (bench/results/2026-12-07-h100-tensor-inverse-fuzz.md). */
#include <hepa/hepa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static uint64_t st = 88172645463325252ull;
static uint64_t rnd(void) {
    st ^= st << 13;
    st ^= st >> 7;
    st ^= st << 17;
    return st;
}
static size_t rb(size_t k) {
    return k ? rnd() % k : 0;
}
static long ops, oks, bad;
static char cfg[256];
#define MAXW (1u << 16) * 64
static uint64_t *H1, *H2, *H3;
typedef struct {
    hepa_poly *h, *d;
} tw;
static hepa_ring *RH, *RD;
static size_t N, M;
static uint64_t Q[64];
static void fill(uint64_t *x, size_t l) {
    for (size_t i = 0; i < l; i++)
        for (size_t j = 0; j < N; j++) {
            uint64_t q = Q[i];
            switch (rb(16)) {
            case 0:
                x[i * N + j] = 0;
                break;
            case 1:
                x[i * N + j] = q - 1;
                break;
            case 2:
                x[i * N + j] = q / 2;
                break;
            default:
                x[i * N + j] = rnd() % q;
            }
        }
}
static tw mk(size_t l, hepa_domain dm) {
    tw t = {0, 0};
    if (hepa_poly_create(&t.h, RH, l) || hepa_poly_create(&t.d, RD, l)) {
        printf("create\n");
        exit(2);
    }
    fill(H1, l);
    if (hepa_poly_set(t.h, H1, dm) || hepa_poly_set(t.d, H1, dm)) {
        printf("set\n");
        exit(2);
    }
    return t;
}
/* an output: different canonical garbage on each side */
static tw out(size_t l) {
    tw t = mk(l, (hepa_domain)rb(2));
    fill(H1, l);
    if (hepa_poly_set(t.d, H1, hepa_poly_domain(t.h))) exit(2);
    return t;
}
static uint64_t fp1(hepa_poly *p) {
    size_t l = hepa_poly_level(p);
    if (hepa_poly_get(p, H2)) {
        printf("get\n");
        exit(2);
    }
    uint64_t h = 1469598103934665603ull ^ (uint64_t)hepa_poly_domain(p);
    for (size_t i = 0; i < l * N; i++)
        h = (h ^ H2[i]) * 1099511628211ull;
    return h;
}
static void fr(tw t) {
    hepa_poly_destroy(t.h);
    hepa_poly_destroy(t.d);
}
static void cmp(const char *what, int sh, int sd, tw *o, int no) {
    ops++;
    if (sh != sd) {
        bad++;
        printf("STATUS %s: cpu %d gpu %d | %s\n", what, sh, sd, cfg);
        return;
    }
    if (sh) return;
    oks++;
    for (int k = 0; k < no; k++) {
        size_t l = hepa_poly_level(o[k].h);
        if (hepa_poly_get(o[k].h, H2) || hepa_poly_get(o[k].d, H3)) {
            printf("get\n");
            exit(2);
        }
        if (hepa_poly_domain(o[k].h) != hepa_poly_domain(o[k].d)) {
            bad++;
            printf("DOMAIN %s out%d | %s\n", what, k, cfg);
        }
        for (size_t i = 0; i < l * N; i++)
            if (H2[i] != H3[i]) {
                bad++;
                printf("WORD %s out%d limb %zu idx %zu: cpu %llu gpu %llu | %s\n", what, k, i / N,
                       i % N, (unsigned long long)H2[i], (unsigned long long)H3[i], cfg);
                break;
            }
    }
}
int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 60;
    st = (argc > 2 ? strtoull(argv[2], 0, 10) : 1) * 2654435761u + 12345;
    const int cpu2 = getenv("FZD_CPU") != NULL; /* both sides on the CPU: checks the harness */
    if (!cpu2 && !hepa_cuda_available()) {
        printf("no GPU\n");
        return 3;
    }
    H1 = malloc(MAXW * 8), H2 = malloc(MAXW * 8), H3 = malloc(MAXW * 8);
    const unsigned bitset[] = {30, 36, 40, 40, 40, 44, 47, 50, 55, 60, 60, 62};
    time_t t0 = time(NULL);
    long shapes = 0;
    while (difftime(time(NULL), t0) < secs) {
        /* shape */
        unsigned logn = 4 + (unsigned)rb(13);
        if (rb(3) == 0) logn = 13 + (unsigned)rb(4);
        N = (size_t)1 << logn;
        size_t K = 1 + rb(4), L = 1 + rb(logn >= 15 ? 20 : 12);
        if (rb(6) == 0 && logn >= 15) L = 33;
        M = L + K;
        if (M * N > MAXW) continue;
        size_t alpha = rb(3) == 0 ? 0 : 1 + rb(4);
        int uniform = rb(3) == 0;
        unsigned ub = bitset[rb(12)];
        int okq = 1;
        for (size_t i = 0; i < M && okq; i++) {
            unsigned b = i >= L              ? (rb(3) ? 60 : bitset[rb(12)])
                         : (i == 0 && rb(2)) ? 60
                         : uniform           ? ub
                                             : bitset[rb(12)];
            if (2 * N >= ((uint64_t)1 << (b - 1))) b = 40;
            /* the largest b-bit NTT prime not taken yet: the (idx+1)-th, idx = those taken */
            size_t idx = 0;
            for (size_t j = 0; j < i; j++)
                idx += (Q[j] >> (b - 1)) == 1;
            uint64_t cand[64];
            if (hepa_primes_ntt(cand, idx + 1, b, N)) {
                okq = 0;
                break;
            }
            Q[i] = cand[idx];
        }
        if (!okq) continue;
        if (hepa_ring_create(&RH, N, Q, M, HEPA_BACKEND_CPU)) continue;
        if (hepa_ring_create(&RD, N, Q, M, cpu2 ? HEPA_BACKEND_CPU : HEPA_BACKEND_CUDA)) {
            printf("gpu ring\n");
            return 2;
        }
        snprintf(cfg, sizeof cfg, "n 2^%u L %zu K %zu alpha %zu bits", logn, L, K, alpha);
        for (size_t i = 0; i < M && strlen(cfg) < 200; i++)
            snprintf(cfg + strlen(cfg), sizeof cfg - strlen(cfg), " %d",
                     64 - __builtin_clzll(Q[i]));
        shapes++;
        hepa_ks *kh = NULL, *kd = NULL;
        hepa_ksk *keyh = NULL, *keyd = NULL;
        int sk = hepa_ks_create(&kh, RH, K, alpha), skd = hepa_ks_create(&kd, RD, K, alpha);
        if (sk != skd) {
            bad++;
            printf("STATUS ks_create %d %d | %s\n", sk, skd, cfg);
        }
        if (!sk && !skd) {
            uint8_t seed[32];
            for (int i = 0; i < 32; i++)
                seed[i] = (uint8_t)rnd();
            hepa_rng *gh = NULL, *gd = NULL;
            if (hepa_rng_create(&gh, seed) || hepa_rng_create(&gd, seed)) return 2;
            tw s = out(M), s2 = out(M);
            if (hepa_sample_ternary(gh, s.h) || hepa_sample_ternary(gd, s.d) ||
                hepa_sample_gaussian(gh, s2.h, 3.2) || hepa_sample_gaussian(gd, s2.d, 3.2) ||
                hepa_poly_to_ntt(s.h) || hepa_poly_to_ntt(s.d) || hepa_poly_to_ntt(s2.h) ||
                hepa_poly_to_ntt(s2.d))
                return 2;
            tw o[2] = {s, s2};
            cmp("samples", 0, 0, o, 2);
            int a = hepa_ksk_create(&keyh, kh, s2.h, s.h, gh),
                b = hepa_ksk_create(&keyd, kd, s2.d, s.d, gd);
            if (a || b) {
                bad++;
                printf("STATUS ksk_create %d %d | %s\n", a, b, cfg);
                keyh = keyd = NULL;
            }
            fr(s), fr(s2);
            hepa_rng_destroy(gh), hepa_rng_destroy(gd);
        }
        int nops = 6 + (int)rb(10);
        for (int it = 0; it < nops; it++) {
            size_t l = 1 + rb(M);
            int op = (int)rb(16);
            if (op >= 12 && kh && rb(4)) l = 1 + rb(L);
            hepa_domain dm = (hepa_domain)rb(2);
            tw x[4];
            for (int k = 0; k < 4; k++)
                x[k] = mk(l, rb(10) ? dm : (hepa_domain)rb(2));
            tw y[3] = {out(l), out(l), out(l)};
            int sh = 0, sd = 0;
            char w[64] = "";
            const int alias = (int)rb(4) == 0;
            uint64_t pre[14];
            tw *all[7] = {&x[0], &x[1], &x[2], &x[3], &y[0], &y[1], &y[2]};
            for (int k = 0; k < 7; k++)
                pre[2 * k] = fp1(all[k]->h), pre[2 * k + 1] = fp1(all[k]->d);
            tw *o0 = alias ? &x[0] : &y[0];
            switch (op) {
            case 0:
                sh = hepa_poly_add(o0->h, x[0].h, x[1].h);
                sd = hepa_poly_add(o0->d, x[0].d, x[1].d);
                strcpy(w, "add");
                break;
            case 1:
                sh = hepa_poly_sub(o0->h, x[0].h, x[1].h);
                sd = hepa_poly_sub(o0->d, x[0].d, x[1].d);
                strcpy(w, "sub");
                break;
            case 2:
                sh = hepa_poly_mul(o0->h, x[0].h, x[1].h);
                sd = hepa_poly_mul(o0->d, x[0].d, x[1].d);
                strcpy(w, "mul");
                break;
            case 3: {
                uint64_t sc[64];
                for (size_t i = 0; i < l; i++)
                    sc[i] = rb(4) ? rnd() % Q[i] : Q[i] - 1;
                sh = hepa_poly_mul_scalar(o0->h, x[0].h, sc);
                sd = hepa_poly_mul_scalar(o0->d, x[0].d, sc);
                strcpy(w, "mul_scalar");
                break;
            }
            case 4:
                if (hepa_poly_domain(x[0].h) == HEPA_DOMAIN_COEFF) {
                    sh = hepa_poly_to_ntt(x[0].h);
                    sd = hepa_poly_to_ntt(x[0].d);
                    strcpy(w, "to_ntt");
                } else {
                    sh = hepa_poly_from_ntt(x[0].h);
                    sd = hepa_poly_from_ntt(x[0].d);
                    strcpy(w, "from_ntt");
                }
                o0 = &x[0];
                break;
            case 5:
                sh = hepa_poly_tensor(y[0].h, y[1].h, y[2].h, x[0].h, x[1].h, x[2].h, x[3].h);
                sd = hepa_poly_tensor(y[0].d, y[1].d, y[2].d, x[0].d, x[1].d, x[2].d, x[3].d);
                strcpy(w, "tensor");
                break;
            case 6: {
                tw r0 = out(l > 1 ? l - 1 : 1);
                sh = hepa_poly_rescale(r0.h, x[0].h);
                sd = hepa_poly_rescale(r0.d, x[0].d);
                snprintf(w, sizeof w, "rescale l %zu dom %d", l, (int)hepa_poly_domain(x[0].h));
                cmp(w, sh, sd, &r0, 1);
                fr(r0);
                goto next;
            }
            case 7: {
                tw r0 = out(l > 1 ? l - 1 : 1), r1 = out(l > 1 ? l - 1 : 1);
                sh = hepa_poly_rescale_pair(r0.h, r1.h, x[0].h, x[1].h);
                sd = hepa_poly_rescale_pair(r0.d, r1.d, x[0].d, x[1].d);
                snprintf(w, sizeof w, "rescale_pair l %zu dom %d", l,
                         (int)hepa_poly_domain(x[0].h));
                tw rr[2] = {r0, r1};
                cmp(w, sh, sd, rr, 2);
                fr(r0);
                fr(r1);
                goto next;
            }
            case 8: {
                tw r0 = out(l > 1 ? l - 1 : 1);
                sh = hepa_poly_drop(r0.h, x[0].h);
                sd = hepa_poly_drop(r0.d, x[0].d);
                cmp("drop", sh, sd, &r0, 1);
                fr(r0);
                goto next;
            }
            case 9: {
                uint64_t g = rb(4) ? (2 * rb(2 * N) + 1) : rnd();
                if (rb(3) == 0) g = 2 * N - 1;
                sh = hepa_poly_automorphism(o0->h, x[0].h, g);
                sd = hepa_poly_automorphism(o0->d, x[0].d, g);
                snprintf(w, sizeof w, "automorphism g %llu dom %d", (unsigned long long)g,
                         (int)hepa_poly_domain(x[0].h));
                break;
            }
            case 10:
                sh = hepa_poly_neg(o0->h, x[0].h);
                sd = hepa_poly_neg(o0->d, x[0].d);
                strcpy(w, "neg");
                break;
            case 11:
                sh = hepa_poly_copy(o0->h, x[0].h);
                sd = hepa_poly_copy(o0->d, x[0].d);
                strcpy(w, "copy");
                break;
            case 12:
            case 13:
                if (!keyh) goto skip;
                sh = hepa_keyswitch(kh, o0->h, y[1].h, x[0].h, keyh);
                sd = hepa_keyswitch(kd, o0->d, y[1].d, x[0].d, keyd);
                snprintf(w, sizeof w, "keyswitch l %zu", l);
                {
                    tw oo[2] = {*o0, y[1]};
                    cmp(w, sh, sd, oo, 2);
                }
                goto next;
            case 14: {
                if (!keyh) goto skip;
                int n1 = (int)rb(3) == 0;
                sh =
                    hepa_keyswitch_add(kh, o0->h, y[1].h, x[0].h, keyh, x[1].h, n1 ? NULL : x[2].h);
                sd =
                    hepa_keyswitch_add(kd, o0->d, y[1].d, x[0].d, keyd, x[1].d, n1 ? NULL : x[2].d);
                snprintf(w, sizeof w, "keyswitch_add l %zu", l);
                {
                    tw oo[2] = {*o0, y[1]};
                    cmp(w, sh, sd, oo, 2);
                }
                goto next;
            }
            case 15: {
                if (!keyh) goto skip;
                int sq = (int)rb(3) == 0;
                tw *b0 = sq ? &x[0] : &x[2], *b1 = sq ? &x[1] : &x[3];
                tw *p0 = alias ? &x[0] : &y[0], *p1 = alias ? &x[1] : &y[1];
                sh = hepa_mul_relin(kh, p0->h, p1->h, x[0].h, x[1].h, b0->h, b1->h, keyh);
                sd = hepa_mul_relin(kd, p0->d, p1->d, x[0].d, x[1].d, b0->d, b1->d, keyd);
                snprintf(w, sizeof w, "mul_relin l %zu sq %d alias %d", l, sq, alias);
                {
                    tw oo[2] = {*p0, *p1};
                    cmp(w, sh, sd, oo, 2);
                }
                goto next;
            }
            }
            if (op == 5)
                cmp(w, sh, sd, y, 3);
            else
                cmp(w, sh, sd, o0, 1);
            goto next;
        skip:;
        next:
            if (sh && sh == sd)
                for (int k = 0; k < 7; k++)
                    if (fp1(all[k]->h) != pre[2 * k] || fp1(all[k]->d) != pre[2 * k + 1]) {
                        bad++;
                        printf("TOUCHED %s status %d operand %d (cpu %d gpu %d) | %s\n", w, sh, k,
                               fp1(all[k]->h) != pre[2 * k], fp1(all[k]->d) != pre[2 * k + 1], cfg);
                    }
            for (int k = 0; k < 4; k++)
                fr(x[k]);
            for (int k = 0; k < 3; k++)
                fr(y[k]);
        }
        hepa_ksk_destroy(keyh), hepa_ksk_destroy(keyd);
        hepa_ks_destroy(kh), hepa_ks_destroy(kd);
        hepa_ring_destroy(RH), hepa_ring_destroy(RD);
        if (bad > 40) break;
    }
    printf("shapes %ld ops %ld ok %ld mismatches %ld\n", shapes, ops, oks, bad);
    return bad != 0;
}
