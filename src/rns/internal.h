/* src/rns/internal.h — private layout of rings and polynomials, and the CPU backend's raw
 * limb-wise operations. */
#ifndef HEPA_SRC_RNS_INTERNAL_H
#define HEPA_SRC_RNS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/modarith.h"
#include "hepa/ntt.h"
#include "hepa/poly.h"
#include "hepa/ring.h"
#include "device/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

struct hepa_ring {
    size_t n;               /* power of two in [HEPA_RING_MIN_N, HEPA_RING_MAX_N] */
    unsigned log_n;
    size_t num_moduli;      /* L in [1, HEPA_RING_MAX_MODULI] */
    hepa_backend backend;   /* CPU or CUDA, never AUTO */
    uint64_t *moduli;       /* L values (also in mods[i].value) */
    hepa_modulus *mods;     /* L moduli with Barrett constants */
    hepa_ntt_tables **ntt;  /* L tables */
    hepa_ring_device *dev;  /* CUDA backend state, NULL on the CPU backend */
};

struct hepa_poly {
    const hepa_ring *ring;
    size_t level;        /* live limbs, in [1, ring->num_moduli] */
    hepa_domain domain;
    uint64_t *data;      /* level·n words, limb-major, residues in [0, q_i) */
};

/* CPU backend, raw tier: limb-wise operations over `level` limbs of n words each, on the
 * ring's first `level` moduli. Inputs in [0, q_i), outputs in [0, q_i). out may equal a or b
 * (element-wise, so any exact aliasing is safe); partial overlaps are not allowed. */
void _hepa_host_add(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                    const uint64_t *b);
void _hepa_host_sub(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                    const uint64_t *b);
void _hepa_host_neg(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a);
void _hepa_host_mul_pointwise(const hepa_ring *ring, size_t level, uint64_t *out,
                              const uint64_t *a, const uint64_t *b);
void _hepa_host_mul_scalar(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                           const uint64_t *scalars);
void _hepa_host_ntt_forward(const hepa_ring *ring, size_t level, uint64_t *a);
void _hepa_host_ntt_inverse(const hepa_ring *ring, size_t level, uint64_t *a);
/* out = a * b negacyclic, coefficient domain in and out. scratch: level·n words that must not
 * overlap out, a or b; out may equal a or b. */
void _hepa_host_negacyclic_mul(const hepa_ring *ring, size_t level, uint64_t *out,
                               const uint64_t *a, const uint64_t *b, uint64_t *scratch);

/* ---- ciphertext building blocks (hepa/rns.h, hepa/keyswitch.h) ---------------------------- */

/* Fills a conversion table (layout in conv_core.h, hepa_conv_words(ns, nt) words) from the
 * ring's moduli src[0..ns) to dst[0..nt); target t is written to output limb out_limb[t]
 * (out_limb NULL: limb t). Indices must be valid and src distinct (not checked). */
void _hepa_conv_build(const hepa_ring *ring, uint64_t *tab, const size_t *src, size_t ns,
                      const size_t *dst, const size_t *out_limb, size_t nt);
/* Host conversion of n coefficients: in = ns limbs, out limb out_limb[t] of each target. On
 * AVX-512 CPUs (n % 8 == 0) it runs _hepa_host_conv_avx512 (rns_avx512.c), the same words. */
void _hepa_host_conv(const uint64_t *tab, size_t n, uint64_t *out, const uint64_t *in, int exact);
#ifdef HEPA_HOST_AVX512
void _hepa_host_conv_avx512(const uint64_t *tab, size_t n, uint64_t *out, const uint64_t *in,
                            int exact);
/* The key-switch inner product of one extended limb (keyswitch.c's host_inner, n % 8 == 0):
 * t0[x] = Σ_j ext[j·ext_step + src(x)]·key[j·key_step + x], t1 the same with key + a_off, mod
 * q, for j < dn; src NULL (identity) or _hepa_auto_ntt_src's map. Words in [0, q). */
void _hepa_host_inner_avx512(size_t n, size_t dn, const uint64_t *ext, size_t ext_step,
                             const uint64_t *key, size_t key_step, size_t a_off,
                             const uint32_t *src, uint64_t q, uint64_t *t0, uint64_t *t1);
#endif

/* Host raw tier (ranges [0, q) in and out; n = ring->n): */
void _hepa_host_tensor(const hepa_ring *ring, size_t level, uint64_t *d0, uint64_t *d1,
                       uint64_t *d2, const uint64_t *a0, const uint64_t *a1, const uint64_t *b0,
                       const uint64_t *b1);
/* out (level-1 limbs) = round(a / q_(level-1)); a in the coefficient domain, or (ntt) in the NTT
 * domain, where tmp holds level limbs of scratch. out must not overlap a. */
void _hepa_host_rescale(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                        int ntt, uint64_t *tmp);
/* The NTT-domain index k' that σ_g reads for output index k (hepa/rns.h):
 * 2·rev(k') + 1 = (2·rev(k) + 1)·g mod 2n, g odd. The same for every modulus; it maps each
 * aligned block of 2^t indices onto an aligned block of 2^t (the low t bits of k are the high
 * bits of rev(k), which g only permutes), so k and k ^ 1 read k' and k' ^ 1. */
size_t _hepa_auto_ntt_src(size_t k, uint64_t g, unsigned log_n);
/* out = σ_g(a), level limbs; out must not overlap a. */
void _hepa_host_automorphism(const hepa_ring *ring, size_t level, uint64_t *out,
                             const uint64_t *a, uint64_t g, int ntt);
/* Per-limb constants of a rescale by q_(level-1): inv[i] = q_(level-1)^(-1) mod q_i with Shoup
 * companions, qmod[i] = q_(level-1) mod q_i, for i < level - 1. */
void _hepa_rescale_consts(const hepa_ring *ring, size_t level, uint64_t *inv, uint64_t *inv_sh,
                          uint64_t *qmod);
/* Device raw tier (rns_cuda.cu; device pointers; enqueued on the ring's stream). */
/* (d0, d1, d2) = (a0, a1) ⊗ (b0, b1), NTT domain; d0 = d1 = NULL: d2 = a1·b1 alone (a0, b0 not
 * read; hepa_mul_relin's fused path, whose d0 and d1 come from ModDown's last pass). */
hepa_status _hepa_dev_tensor(const hepa_ring *ring, size_t level, uint64_t *d0, uint64_t *d1,
                             uint64_t *d2, const uint64_t *a0, const uint64_t *a1,
                             const uint64_t *b0, const uint64_t *b1);
/* Rescale of a0 into out0, and of a1 into out1 unless out1 is NULL (a pair: shared launches in
 * the NTT domain at n >= 2^13); tmp: level limbs of device scratch (NTT domain only). */
hepa_status _hepa_dev_rescale(const hepa_ring *ring, size_t level, uint64_t *out0,
                              const uint64_t *a0, uint64_t *out1, const uint64_t *a1, int ntt,
                              uint64_t *tmp);
hepa_status _hepa_dev_automorphism(const hepa_ring *ring, size_t level, uint64_t *out,
                                   const uint64_t *a, uint64_t g, int ntt);
/* One conversion job: tab (device table), in (ns limbs), out (target t at limb out_limb(t)),
 * copy_in: NULL, or ns limbs copied verbatim to out limbs copy_at .. copy_at + ns - 1 (ModUp's
 * own limbs, which stay in the NTT domain). */
typedef struct hepa_conv_job {
    const uint64_t *tab;
    const uint64_t *in;
    uint64_t *out;
    const uint64_t *copy_in;
    size_t copy_at;
    int pack; /* targets with a modulus below HEPA_KSK_PACK_BELOW written in 5 bytes per word
               * (PACKED COLUMNS, src/ntt/ntt_cuda.cu): key switching's fused ModUp */
    uint64_t smax; /* the largest source modulus (hepa_conv_smax of the host table): the kernel
                    * build with the FP64 route is launched only when some job can take it */
} hepa_conv_job;
#define HEPA_CONV_MAX_JOBS 64
/* Runs njobs (<= HEPA_CONV_MAX_JOBS) conversions of n coefficients in one launch. max_ns: the
 * largest ns among the jobs (sizes the shared memory). */
hepa_status _hepa_dev_conv(const hepa_ring *ring, const hepa_conv_job *jobs, size_t njobs,
                           size_t max_ns, int exact);
/* NTT of `count` limbs chosen by a device map: entry m = (data limb << 8) | modulus index; limb
 * in + (m >> 8)·n is transformed with modulus (m & 0xff) into out + (m >> 8)·n. out may equal in
 * (in place) but must not partially overlap it. */
hepa_status _hepa_dev_ntt_map(const hepa_ring *ring, int inverse, uint64_t *out,
                              const uint64_t *in, const uint32_t *map, size_t count);
/* ModUp with one-limb digits (alpha = 1), n >= 2^10, level = l digits, E = l + K extended limbs:
 * ext digit j, limb j = c limb j (a copy, NTT domain); every other limb (map entry y of `map`,
 * `count` entries) = NTT of the exact conversion of coef limb aux[3y] (coefficient domain) to
 * its modulus, computed as the NTT's first pass loads. aux[3y + 1] = q_src mod q,
 * aux[3y + 2] = 1/q_src (double bits): the values of the digit's conversion table. Returns
 * HEPA_ERR_UNSUPPORTED for n < 2^10 (the caller converts, then transforms). */
hepa_status _hepa_dev_ks_modup1(const hepa_ring *ring, size_t l, size_t E, uint64_t *ext,
                                const uint64_t *c, const uint64_t *coef, const uint32_t *map,
                                size_t count, const uint64_t *aux);
/* Key-switch inner product: t0/t1 limb e (E = level + K limbs) = Σ_j ext[j·E + e] ⊙ key limb of
 * modulus mod(e) (e < level: e; else L + e - level) of digit j's b / a. The key: 2·dnum
 * components of comp bytes in the PACKED KEYS layout of `packed` (rns/ksk_layout.h). */
hepa_status _hepa_dev_ks_inner(const hepa_ring *ring, size_t level, size_t K, size_t dnum,
                               uint64_t *t0, uint64_t *t1, const uint64_t *ext,
                               const unsigned char *key, size_t comp, uint64_t packed);
/* The same with ext read through σ_g (g odd; 0: as _hepa_dev_ks_inner): output word k of limb e
 * from ext word _hepa_auto_ntt_src(k, g) (HOISTING, keyswitch.c). */
hepa_status _hepa_dev_ks_inner_auto(const hepa_ring *ring, size_t level, size_t K, size_t dnum,
                                    uint64_t *t0, uint64_t *t1, const uint64_t *ext,
                                    const unsigned char *key, size_t comp, uint64_t packed,
                                    uint64_t g);
/* A switching key's component (M limbs of n words at src, device) into its storage at dst in
 * the PACKED KEYS layout of `packed` (rns/ksk_layout.h). */
hepa_status _hepa_dev_ksk_pack(const hepa_ring *ring, unsigned char *dst, const uint64_t *src,
                               uint64_t packed);
/* out_k[i] = (a_k[i] - b_k[i]) · s_i (+ c_k[i]) mod q_i for i < level, k < npoly (1 or 2), s
 * with Shoup companions (host arrays, passed by value); c_k may be NULL (nothing added) or
 * equal out_k. */
hepa_status _hepa_dev_sub_scale(const hepa_ring *ring, size_t level, int npoly, uint64_t *out0,
                                const uint64_t *a0, const uint64_t *b0, uint64_t *out1,
                                const uint64_t *a1, const uint64_t *b1, const uint64_t *s,
                                const uint64_t *s_sh, const uint64_t *c0, const uint64_t *c1);

/* MODDOWN RESCALE's first step (hepa_mul_relin_rescale, keyswitch.c): limb level - 1 of t0
 * and t1 (8-byte words, NTT domain, in [0, q)) += pmod · d_k, with d0 = a0·b0 and
 * d1 = a0·b1 + a1·b0 from limb level - 1 of tens's inputs, mod q_(level-1); pmod = P mod
 * q_(level-1). One thread per pair of words of the one limb. */
hepa_status _hepa_dev_ks_rescale_prep(const hepa_ring *ring, size_t level, uint64_t *t0,
                                      uint64_t *t1, const hepa_tensor_in *tens, uint64_t pmod);

/* 1 when every residue of the level·n words is below its limb's modulus. */
int _hepa_limbs_ok(const hepa_ring *ring, size_t level, const uint64_t *a);

#ifdef __cplusplus
}
#endif
#endif
