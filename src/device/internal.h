/* src/device/internal.h — the CUDA runtime glue seen from C (device.cu), and the device-side
 * entry points of the NTT and ring kernels (ntt/ntt_cuda.cu, rns/poly_cuda.cu). In a CPU-only
 * build device_none.c serves hepa_device_count and the rest is never reached (no ring can be on
 * the CUDA backend). All functions here enqueue on the ring's stream and do not synchronise
 * unless their comment says so. */
#ifndef HEPA_SRC_DEVICE_INTERNAL_H
#define HEPA_SRC_DEVICE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of usable CUDA devices (0 in a CPU-only build or when the driver reports none). */
int hepa_device_count(void);

/* Per-limb constants the kernels need (device copy in hepa_ring_device.limbs). */
typedef struct hepa_dev_limb {
    uint64_t q;
    uint64_t ratio_hi, ratio_lo;     /* Barrett floor(2^128/q) */
    uint64_t n_inv, n_inv_shoup;     /* n^(-1) */
    uint64_t n_inv_w, n_inv_w_shoup; /* n^(-1) · ψ^(-rev(1)) (last inverse stage) */
    uint64_t tw64; /* q < HEPA_DEV_F64_BELOW: word offset in hepa_ring_device.tables of n doubles
                    * fwd[k] then n doubles inv[k] (the FP64 butterflies' twiddles), then for
                    * fwd and for inv the ROW FACTORS of the row passes (n >= 2^13; ntt_cuda.cu,
                    * GENERATED ROW TWIDDLES): 256 doubles S, then 8·(n >> 8) doubles R; else 0 */
    double qd, qi; /* q < HEPA_DEV_F64_BELOW: q as a double (exact) and 1/q correctly rounded, the
                    * FP64 path's constants (ntt/f64_arith.cuh), made once here instead of a
                    * conversion and a division in every thread of every NTT kernel; else 0 */
} hepa_dev_limb;

/* A ring's device state. Tables: one allocation of L·4·n words, limb i at tables + 4·n·i: n
 * pairs (fwd[k], fwd_shoup[k]) then n pairs (inv[k], inv_shoup[k]) (hepa_ntt_table_view's
 * values, each twiddle next to its Shoup companion so one 16-byte load fetches both); then
 * HEPA_DEV_F64_WORDS(n) words per FP64 limb, its twiddles as doubles and its row factors
 * (hepa_dev_limb.tw64). */
#define HEPA_DEV_F64_WORDS(n) (2 * (size_t)(n) + 2 * (256 + ((size_t)(n) >> 5)))
typedef struct hepa_ring_device {
    int device;
    void *stream;          /* cudaStream_t, owned */
    void *pool;            /* cudaMemPool_t, the device's default pool */
    uint64_t *tables;      /* device */
    hepa_dev_limb *limbs;  /* device, L entries */
    uint32_t *idmap;       /* device, idmap[i] = i for i < 64: NTT map entries (data limb 0,
                            * modulus i) for one limb of any modulus (see _hepa_dev_ntt_map) */
    uint64_t *rescale;     /* device, L blocks of 1 + 3L words: block l - 1 (a rescale from l
                            * limbs) = q_(l-1) / 2, then (q_(l-1) mod q_i, q_(l-1)^(-1) mod q_i,
                            * its Shoup companion) for i < l - 1 (see _hepa_dev_ntt_rescale) */
    int f64;               /* some modulus is below HEPA_DEV_F64_BELOW: the NTT kernels with FP64
                            * butterflies for such limbs (ntt_cuda.cu, FP64 LIMBS) */
    int pdl;               /* _hepa_dev_pdl_capable: the NTT kernels are launched with
                            * programmatic dependent launch (ntt_cuda.cu, PDL) */
    void *helper;          /* cudaStream_t, owned, of the highest priority: work that overlaps the
                            * ring's stream (_hepa_dev_fork / _hepa_dev_join) */
    int helper_prio;       /* the priority of launches on the helper stream (a launch attribute,
                            * pdl.cuh: HELPER PRIORITY); the stream's own (the device's greatest)
                            * unless a caller's view of the ring lowers it */
    int least_prio;        /* the device's least (default) stream priority */
    void *fork_ev[2];      /* cudaEvent_t, owned: the fork's and the join's */
    int sms;               /* the device's multiprocessor count */
    int l2;                /* its L2 cache size in bytes (50 MiB on an H100 SXM) */
    unsigned *sched;       /* device, HEPA_DEV_SCHED_WORDS zeroed words: the work counters of the
                            * one-launch NTT on the ring's stream (ntt_cuda.cu, TWO PASSES IN ONE
                            * LAUNCH), zero again when each launch ends */
} hepa_ring_device;
#define HEPA_DEV_SCHED_WORDS 258

/* Limbs with q below this run their NTT butterflies on the FP64 pipe (ntt_cuda.cu, FP64 LIMBS,
 * whose bounds need q < 2^47). */
#define HEPA_DEV_F64_BELOW ((uint64_t)1 << 47)

struct hepa_ring;

/* Set up the device state of a ring whose host part (moduli, NTT tables) is complete: pick the
 * current device, create a stream, upload the tables (synchronously: ring creation is not a hot
 * path). On failure nothing is left allocated. */
hepa_status _hepa_dev_ring_init(struct hepa_ring *ring);
void _hepa_dev_ring_free(struct hepa_ring *ring);
/* HELPER STREAM. _hepa_dev_fork: work then enqueued on the helper stream (through a copy of the
 * ring whose hepa_ring_device copy has stream = helper, as dev_keyswitch in rns/keyswitch.c makes
 * one) runs after everything enqueued on the ring's stream so far, and beside
 * what is enqueued there next; _hepa_dev_join: work enqueued on the ring's stream from then on runs
 * after everything enqueued on the helper stream so far. Neither synchronises the host. A fork is
 * always to be followed by a join, also after an error, so that the ring's stream stays behind
 * all the work of a call. */
hepa_status _hepa_dev_fork(const struct hepa_ring *ring);
hepa_status _hepa_dev_join(const struct hepa_ring *ring);
/* 1 while the ring's stream is being captured into a CUDA graph, else 0 (also on error). */
int _hepa_dev_capturing(const struct hepa_ring *ring);
/* KS GRAPH (rns/keyswitch.c). A capture view: a copy of the ring's hepa_ring_device with its
 * own stream, helper stream (same priority) and fork events, the rest (tables, pool, counters)
 * the ring's. Work is captured through it, never run on it, so calls on the ring from other
 * threads stay out of the capture. _hepa_dev_view_destroy(NULL) is a no-op.
 * _hepa_dev_graph_begin starts capturing the view's stream (thread-local mode);
 * _hepa_dev_graph_end ends it and, when ok, updates the executable graph *exec from the capture
 * (where it has none or the update fails: instantiates one, with node priorities) and launches it
 * on the ring's stream. The captured graph is destroyed either way. _hepa_dev_graph_free
 * destroys an executable graph (NULL: nothing). */
hepa_status _hepa_dev_view_create(const struct hepa_ring *ring, hepa_ring_device **out);
void _hepa_dev_view_destroy(hepa_ring_device *view);
hepa_status _hepa_dev_graph_begin(const struct hepa_ring *view);
hepa_status _hepa_dev_graph_end(const struct hepa_ring *view, const struct hepa_ring *ring,
                                void **exec, int ok);
void _hepa_dev_graph_free(void *exec);
/* Waits for all work enqueued on the ring's stream. */
hepa_status _hepa_dev_sync(const struct hepa_ring *ring);

/* Stream-ordered device memory from the ring device's pool. */
hepa_status _hepa_dev_alloc(const struct hepa_ring *ring, void **ptr, size_t bytes);
void _hepa_dev_free(const struct hepa_ring *ring, void *ptr);
/* Asynchronous copies on the ring's stream; kind: 0 = host→device, 1 = device→host,
 * 2 = device→device. */
hepa_status _hepa_dev_copy(const struct hepa_ring *ring, void *dst, const void *src, size_t bytes,
                           int kind);
/* 1 when ptr is page-locked host memory known to CUDA (hepa_host_alloc), else 0. */
int _hepa_dev_is_pinned(const void *ptr);
hepa_status _hepa_dev_memset(const struct hepa_ring *ring, void *dst, int value, size_t bytes);

/* HEPA_OK when p is memory the device can use (device, managed or registered host memory);
 * HEPA_ERR_INVALID_ARGUMENT for plain host memory or a pointer CUDA does not know, with a
 * message naming `what`. */
hepa_status _hepa_dev_check_ptr(const void *p, const char *what);
/* 1 when p is device (or managed) memory; 0 for host memory or in a CPU-only build. */
int _hepa_dev_ptr_is_device(const void *p);

/* Records a CUDA error (its name and message, for hepa_last_error_message) and maps it to a
 * status: allocation failures → HEPA_ERR_OUT_OF_MEMORY, no device → HEPA_ERR_NO_DEVICE, the
 * rest → HEPA_ERR_DEVICE. code is a cudaError_t. */
hepa_status _hepa_dev_status(int code, const char *where);
/* Lets `kernel` (a __global__ function's address) launch with `bytes` of dynamic shared memory:
 * raises its cudaFuncAttributeMaxDynamicSharedMemorySize to bytes where it is lower, never
 * lowers it, under a lock. The attribute belongs to the kernel, not to a plan or a call, so
 * setting it to each caller's own size lets one caller break another's later launch (a DFT plan
 * made after a larger one of the same kernel; another host thread between a set and its
 * launch). Returns a cudaError_t. */
int _hepa_dev_allow_smem(const void *kernel, size_t bytes);
/* PDL (device/pdl.cuh): *pdl = 1 when `device` can launch with programmatic stream
 * serialization (compute capability 9.0 or later), else 0. The one place that rule lives (the
 * ring's NTT launches, ring->dev->pdl, and the big-prime FFT levels ask it). Returns a
 * cudaError_t (*pdl = 0 on an error). */
int _hepa_dev_pdl_capable(int device, int *pdl);
/* Records a message for hepa_last_error_message (printf-style). */
void _hepa_set_error_message(const char *fmt, ...);

/* ---- kernels (raw tier: device pointers, level limbs of n words, ranges as on the host) ---- */
/* Forward / inverse NTT of `level` limbs, out = NTT(in), [0, q) in and out; out may equal in
 * (in place) but must not partially overlap it. */
hepa_status _hepa_dev_ntt_forward(const struct hepa_ring *ring, size_t level, uint64_t *out,
                                  const uint64_t *in);
hepa_status _hepa_dev_ntt_inverse(const struct hepa_ring *ring, size_t level, uint64_t *out,
                                  const uint64_t *in);
/* out_a = NTT(in_a) and out_b = NTT(in_b) in the same launches (twice the blocks per launch,
 * less last-wave tail than two calls): the two forward NTTs of a negacyclic product. Each pair
 * as for _hepa_dev_ntt_forward; the pairs must not overlap each other. */
hepa_status _hepa_dev_ntt_forward2(const struct hepa_ring *ring, size_t level, uint64_t *out_a,
                                   const uint64_t *in_a, uint64_t *out_b, const uint64_t *in_b);
/* The negacyclic product out = INTT(NTT(a) ⊙ NTT(b)), coefficient domain in and out, [0, q).
 * fa, fb: level·n words each, overwritten (the forward transforms, or the data between passes);
 * they may be a and b themselves (then a and b are overwritten). a == b with fa == fb squares
 * with one forward transform. out may equal fa or fb; nothing else may overlap. */
hepa_status _hepa_dev_ntt_mul(const struct hepa_ring *ring, size_t level, uint64_t *out,
                              const uint64_t *a, const uint64_t *b, uint64_t *fa, uint64_t *fb);
/* The NTT-domain rescale of a0 (level limbs, NTT domain) for n >= 2^13, and of a1 with it when
 * out1 is not NULL (a pair shares every launch): out_i = (a_i - NTT_i(centred(c) mod q_i)) ·
 * q_(level-1)^(-1) for i < level - 1, where c = INTT(a's last limb). `last` (n words, 2n for a
 * pair) receives c; the first forward pass computes the correction as it loads, the last one
 * subtracts and scales as it stores, and out holds the data in between, so out must not
 * overlap a0, a1 or last. Returns HEPA_ERR_UNSUPPORTED for n < 2^13 (the caller then takes the
 * unfused path). */
hepa_status _hepa_dev_ntt_rescale(const struct hepa_ring *ring, size_t level, uint64_t *out0,
                                  const uint64_t *a0, uint64_t *out1, const uint64_t *a1,
                                  uint64_t *last);
/* CKKS encode's forward NTT for n >= 2^10: out_i = NTT_i(m mod q_i) for i < level, where
 * coefficient k of m is m[k] (an int64) or, where m[k] == CKKS_BIG (rns/ckks_core.h), the finite
 * integral double big[k]. The first pass reduces as it loads, so the level·n residues are never
 * written before the transform. Returns HEPA_ERR_UNSUPPORTED for n < 2^10 (the caller then
 * reduces into the limbs and transforms). */
hepa_status _hepa_dev_ntt_encode(const struct hepa_ring *ring, size_t level, uint64_t *out,
                                 const int64_t *m, const double *big);
/* The NTT half of _hepa_dev_ks_modup1 (rns/internal.h): map entry y's limb of ext = NTT of the
 * conversion of coef limb aux[3y] to its modulus. The entries come in runs of `run` (count a
 * multiple of it) that share their source limb and 1/q_s (a digit's targets). HEPA_ERR_UNSUPPORTED
 * for n < 2^10. */
hepa_status _hepa_dev_ntt_modup1(const struct hepa_ring *ring, size_t count, size_t run,
                                 uint64_t *ext, const uint64_t *coef, const uint32_t *map,
                                 const uint64_t *aux);

/* Key switching's ModUp and inner product, fused (n >= 2^13; HEPA_ERR_UNSUPPORTED below):
 * _hepa_dev_ntt_modup_cols runs every NTT pass but the last (the row pass) on the `count` map
 * entries: with aux, map entry y's input is the conversion of coef limb aux[3y] as in
 * _hepa_dev_ntt_modup1 (runs of `run` entries); without (aux NULL), the entries' limbs of ext are
 * transformed in place (coef and run unused). _hepa_dev_ks_rows_inner then runs the row pass of
 * every extended limb e of every digit j (ext limb j·E + e; for e < level in digit j, e div alpha
 * == j, the NTT-domain input c limb e instead, untransformed) and sums it against the key in the
 * same kernel: t0 / t1 limb e = Σ_j limb ⊙ digit j's b / a of modulus mod(e), as
 * _hepa_dev_ks_inner. ext is left in an intermediate state; its digits' own limbs are never read.
 * The key: 2·dnum components of comp bytes in the PACKED KEYS layout of `packed`
 * (rns/ksk_layout.h). _hepa_dev_ks_rows_inner's launch covers the extended limbs i0 .. i0 + ni - 1
 * in the order special primes first (e = level .. level + K - 1), then e = 0 .. level - 1, or
 * with last_first e = level - 1 and then e = 0 .. level - 2: (0, level + K) is all of them, (0,
 * K) the special primes', (K, level) the Q limbs'; with last_first (0, K + 1) and (K + 1, level -
 * 1) are MODDOWN RESCALE's two (keyswitch.c)
 * (HEPA_ERR_INVALID_ARGUMENT for an empty or out-of-range span). pack_q: t0 / t1's Q limbs
 * (e < level) below 2^40 are stored in PACKED Q LIMBS (5-byte words, hepa_pack5_put's layout in
 * rns/ksk_layout.h, in the limb's usual slot) where _hepa_dev_ks_packed holds, for
 * _hepa_dev_ntt_moddown with packed_t; the special primes' limbs keep 8-byte words. pdl: 0
 * launches without programmatic stream serialization even where the ring has it (key
 * switching's NO PDL IN GRAPHS); 1 follows ring->dev->pdl. */
hepa_status _hepa_dev_ntt_modup_cols(const struct hepa_ring *ring, size_t count, size_t run,
                                     uint64_t *ext, const uint64_t *coef, const uint32_t *map,
                                     const uint64_t *aux);
/* The same column pass for digits of alpha = 2 .. HEPA_DEV_FUSED_CONV_MAX limbs with the
 * conversion fused in
 * (modupn_cols_kernel, src/ntt/ntt_cuda.cu): digit j (j < ceil(level/alpha)) converts coef limbs
 * j·alpha .. (at most alpha, the last digit may be shorter) exactly to its E - (its size)
 * targets with the device conversion table tabs[j] (conv_core.h layout), whose targets are map
 * entries j·(E - alpha) ..; each target's column pass goes to ext in PACKED COLUMNS as
 * _hepa_dev_ntt_modup_cols leaves it, for _hepa_dev_ks_rows_inner. Only where
 * _hepa_dev_ks_packed holds; HEPA_ERR_UNSUPPORTED otherwise (and for alpha outside 2 ..
 * HEPA_DEV_FUSED_CONV_MAX), when the caller converts with _hepa_dev_conv and then calls
 * _hepa_dev_ntt_modup_cols. */
hepa_status _hepa_dev_ntt_modupn_cols(const struct hepa_ring *ring, size_t level, size_t E,
                                      size_t alpha, uint64_t *ext, const uint64_t *coef,
                                      const uint32_t *map, const uint64_t *const *tabs);
/* 1 when the fused ModUp keeps FP64 targets below 2^40 in PACKED COLUMNS (rings with FP64 limbs,
 * n = 2^15 .. 2^17; see src/ntt/ntt_cuda.cu): the conversion jobs of digits of 2 or more limbs
 * then set hepa_conv_job::pack. */
int _hepa_dev_ks_packed(const struct hepa_ring *ring);
/* The most sources (digit limbs, special primes) that the fused conversions above and below take
 * (modupn_cols_kernel, ntt_cuda.cu: 3 or 4; see MODUP COLUMNS, DIGITS OF 2-4 LIMBS there for what
 * 4 measured). keyswitch.c reads it to pick ModUp's and ModDown's routes. */
#ifndef HEPA_DEV_FUSED_CONV_MAX
#define HEPA_DEV_FUSED_CONV_MAX 4
#endif
/* The same for MODDOWN RESCALE's conversion (keyswitch.c: K special primes and q_(l-1)), the
 * kernel's own limit: modupn_cols_kernel is built with 5 sources for this route alone, so P = 4
 * is fused too (H100, 2^16/33: hepa_mul_relin_rescale 578 -> 520 µs). */
#define HEPA_DEV_RESCALE_CONV_MAX 5
/* ModDown's first NTT pass with its conversion fused in, K = 2 .. HEPA_DEV_FUSED_CONV_MAX
 * special primes, where
 * _hepa_dev_ks_packed holds (HEPA_ERR_UNSUPPORTED otherwise): coef = t0's K coefficient-domain
 * P limbs, t1's the same E·n words further (E = level + K: hepa_keyswitch_add's layout), each
 * converted exactly with the device conversion table tab (conv_core.h: K sources, level targets)
 * to the level Q limbs and column-transformed into mid (the pair: limb i of t_p at data limb
 * p·level + i, map: 2·level entries) in PACKED COLUMNS, for _hepa_dev_ntt_moddown's last pass
 * (phase 2, packed_t). modupn_cols_kernel with the two polynomials as its digits. */
hepa_status _hepa_dev_ntt_moddownn_cols(const struct hepa_ring *ring, size_t level, size_t K,
                                        uint64_t *mid, const uint64_t *coef, const uint32_t *map,
                                        const uint64_t *tab);
hepa_status _hepa_dev_ks_rows_inner(const struct hepa_ring *ring, size_t level, size_t K,
                                    size_t alpha, size_t dnum, uint64_t *t0, uint64_t *t1,
                                    const uint64_t *ext, const uint64_t *c,
                                    const unsigned char *key, size_t comp, uint64_t packed,
                                    size_t i0, size_t ni, int pack_q, int last_first, int pdl);

/* Key switching's ModDown after its inverse NTT of P and, for K > 1, its conversion (n >= 2^13;
 * HEPA_ERR_UNSUPPORTED below): out_k[i] = (t_k[i] - NTT_i(y_k))·s_i for i < level, k = 0, 1, in
 * one forward NTT of the pair whose last pass subtracts and scales (scale_aux: the rescale's
 * layout, s_i and its Shoup companion at [2 + 3i], [3 + 3i]). y_k: level limbs (the conversion,
 * coefficient domain); or, with conv_aux, the one coefficient-domain P limb, converted exactly to
 * each q_i as the first pass loads (conv_aux[3i ..] = 0, P mod q_i, 1/P as double bits, as for
 * _hepa_dev_ntt_modup1). mid (2·level limbs) holds the pair between the passes; y_k may lie in
 * it at + k·level·n (transformed in place). add0 / add1 (level limbs each, or NULL): added to
 * out0 / out1 as the last pass stores (hepa_keyswitch_add). The last pass reads t_k and add_k at
 * each word before it writes out_k there, so out_k may equal either. With tens (not NULL; then
 * add0 / add1 must be NULL) the adds are the tensor product's d0 = a0·b0 and d1 = a0·b1 + a1·b0,
 * computed as the last pass stores (hepa_mul_relin: d0 and d1 never written): out0's blocks read
 * a0 and b0, out1's all four, at words out0's blocks write, so out_k must not overlap any of the
 * four. packed_t: t_k's limbs are read in PACKED Q LIMBS, as _hepa_dev_ks_rows_inner stores them
 * with pack_q (limbs below 2^40 where _hepa_dev_ks_packed holds; tens requires it, else
 * HEPA_ERR_INVALID_ARGUMENT), and mid's limbs below 2^40 are in PACKED COLUMNS between the
 * passes where _hepa_dev_ks_packed holds; then for K > 1, y_k (= mid) must come so from the
 * conversion (hepa_conv_job::pack). phase: 0 the whole NTT; 1 every
 * pass but the last (reads y_k, writes mid; t_k, add_k and out_k untouched); 2 the last pass alone,
 * after a phase-1 call with the same mid; another phase: HEPA_ERR_INVALID_ARGUMENT.
 * rescale (tens only, conv_aux NULL; else HEPA_ERR_INVALID_ARGUMENT): MODDOWN RESCALE
 * (keyswitch.c), out_k[i] = ((t_k[i] - NTT_i(y_k))·s_i + d_k[i])·r_i with r_i = scale_aux[1 +
 * 3i]; the caller passes level l - 1 for a ciphertext at level l (y_k: the conversion from
 * q_(l-1) and P, r_i = q_(l-1)^(-1) mod q_i). */
typedef struct hepa_tensor_in {
    const uint64_t *a0, *a1, *b0, *b1; /* NTT domain, level limbs each, words in [0, q) */
} hepa_tensor_in;
hepa_status _hepa_dev_ntt_moddown(const struct hepa_ring *ring, size_t level, uint64_t *out0,
                                  uint64_t *out1, uint64_t *mid, const uint64_t *t0,
                                  const uint64_t *t1, const uint64_t *y0, const uint64_t *y1,
                                  const uint64_t *conv_aux, const uint64_t *scale_aux,
                                  const uint64_t *add0, const uint64_t *add1,
                                  const hepa_tensor_in *tens, int packed_t, int phase, int rescale);

typedef enum { HEPA_EW_ADD, HEPA_EW_SUB, HEPA_EW_NEG, HEPA_EW_MUL, HEPA_EW_MUL_SCALAR } hepa_ew_op;
/* Element-wise op over level·n words: out = a op b. NEG ignores b. MUL_SCALAR ignores b and
 * multiplies limb i by host_scalars[i] (a host array of level residues, passed to the kernel by
 * value). Inputs [0, q), outputs [0, q); out may equal a or b. */
hepa_status _hepa_dev_elementwise(const struct hepa_ring *ring, size_t level, hepa_ew_op op,
                                  uint64_t *out, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *host_scalars);

#ifdef __cplusplus
}
#endif
#endif
