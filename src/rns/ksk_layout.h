/* src/rns/ksk_layout.h — where a switching key's words lie in its storage (PACKED KEYS), shared
 * by key generation and export (keyswitch.c) and the kernels that read keys (the inner product
 * in rns_cuda.cu, the fused row pass in ntt_cuda.cu).
 *
 * PACKED KEYS. The inner product reads the whole key once per key switch, and at issue 6's
 * shapes the key is most of the bytes moved (2^16, 33 Q primes, P = 1: 1122 MiB of 64-bit words
 * against 357 MB of ModUp output). Its words are residues in [0, q), so for q < 2^40 the top 24
 * bits are zero: such a limb is stored in 5 bytes per word, as n low 32-bit halves followed by
 * n high bytes (both arrays stay coalesced and 16-byte aligned for n >= 2^4). Other limbs keep
 * 8-byte words. On the CUDA backend every modulus below HEPA_KSK_PACK_BELOW is packed; the host
 * backend (the reference) packs nothing. The layout seen through hepa_ksk_export is unchanged.
 *
 * Storage: 2·dnum components (digit j's b, then its a), each `comp` bytes; inside a component
 * modulus m's limb at byte hepa_ksk_limb_at(packed, n, m), in the ring's modulus order. */
#ifndef HEPA_SRC_RNS_KSK_LAYOUT_H
#define HEPA_SRC_RNS_KSK_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include "hepa/modarith.h"

#define HEPA_KSK_PACK_BELOW ((uint64_t)1 << 40)

HEPA_HD unsigned hepa_ksk_popc(uint64_t x) {
#ifdef __CUDA_ARCH__
    return (unsigned)__popcll(x);
#else
    return (unsigned)__builtin_popcountll(x);
#endif
}

/* Byte offset of modulus m's limb (m < 64) in a component: 8 bytes per word before it, 3 fewer
 * for each packed one. With m = the number of moduli: the component's size. */
HEPA_HD size_t hepa_ksk_limb_at(uint64_t packed, size_t n, unsigned m) {
    const uint64_t below = m >= 64 ? packed : packed & (((uint64_t)1 << m) - 1);
    return n * (8 * (size_t)m - 3 * (size_t)hepa_ksk_popc(below));
}

/* The 5-byte word layout of a limb of n words at `limb` (16-byte aligned): word x's low 32 bits
 * at uint32_t index x, its high 8 at byte 4n + x. Switching keys (PACKED KEYS) and key
 * switching's ModUp intermediates (PACKED COLUMNS, src/ntt/ntt_cuda.cu) use it for words below
 * 2^40. Key export and packing, the conversion kernel and modup1_cols_kernel use these two, and
 * the inner product's key pairs hepa_pack5_get2 below. PACKED COLUMNS place their high bytes
 * differently (hepa_pcol_hi below): modup1_cols_kernel and the conversion kernel write them with
 * hepa_pcol_put / put2, ntt_tile_kernel's XF 6 by hand (its PTX changed with the call and was not
 * measured), and the fused row pass copies a row's bytes into shared memory. */
HEPA_HD uint64_t hepa_pack5_get(const void *limb, size_t n, size_t x) {
    const unsigned char *b = (const unsigned char *)limb;
    return ((const uint32_t *)limb)[x] | (uint64_t)b[4 * n + x] << 32;
}
HEPA_HD void hepa_pack5_put(void *limb, size_t n, size_t x, uint64_t w) {
    ((uint32_t *)limb)[x] = (uint32_t)w;
    ((unsigned char *)limb)[4 * n + x] = (unsigned char)(w >> 32);
}

/* PACKED COLUMNS' high bytes (key switching's ModUp intermediates only; switching keys keep the
 * element order above): word x's high byte sits at 4n + hepa_pcol_hi(x). The low halves are as
 * above. hepa_pcol_hi permutes the bits of x so that one 32-byte sector holds 8 adjacent columns
 * (x & 7) of 4 consecutive rows ((x >> 8) & 3), a row being the row pass's 256 words (n >= 1024):
 * the column pass's tile of 8 columns writes whole sectors, and the row pass's block of 4 rows
 * reads one contiguous KiB. In element order a sector held 32 columns of one row, i.e. 4 column
 * tiles written by 4 blocks at different times, each a partial write. Measured on an H100 with
 * those stores left out (an experiment build, timing only): the fused ModUp + inner product at
 * 2^16/33/P=1 went 851 -> 766 µs; with this order it went 855 -> 814 µs (hepa_mul_relin 1002 ->
 * 968-971, 2^17/61 6032 -> 5991, bench/results/2026-11-23-h100-ks-pcol.md). */
HEPA_HD size_t hepa_pcol_hi(size_t x) {
    return (x & ~(size_t)1023) | (x & 0xF8) << 2 | (x >> 5 & 0x18) | (x & 7);
}
/* The even word index of pair p (p in [0, n/2), n >= 1024) in the order that makes a writer of
 * PACKED COLUMNS fill whole sectors (the conversion kernel for digits of alpha >= 2 limbs):
 * within each 1024-word group, threads 4i .. 4i + 3 take the 8 columns of one sector and 4
 * consecutive i the 4 rows, so pair p's high bytes land at 4n + 2p (a warp writes 64
 * contiguous bytes) and every 4 threads write one whole 32-byte sector of low halves. A
 * bijection of [0, n/2): hepa_pcol_hi(hepa_pcol_pair(p)) = 2p. (Its own gain was within noise
 * on an H100, P = 2 .. 4 at 2^16/33: the conversion is a small part of those ModUps.) */
HEPA_HD size_t hepa_pcol_pair(size_t p) {
    return (p & ~(size_t)511) << 1 | (p >> 2 & 3) << 8 | (p >> 4 & 31) << 3 | (p & 3) << 1;
}
HEPA_HD void hepa_pcol_put(void *limb, size_t n, size_t x, uint64_t w) {
    ((uint32_t *)limb)[x] = (uint32_t)w;
    ((unsigned char *)limb)[4 * n + hepa_pcol_hi(x)] = (unsigned char)(w >> 32);
}

#ifdef __CUDACC__
/* Words x and x + 1 (x even) of PACKED COLUMNS in one 8-byte and one 2-byte store, at 32-bit
 * byte offsets from the limb: lo = 4x, hi = 4n + hepa_pcol_hi(x) (= 4n + 2p for the conversion
 * kernel's pair p, hepa_pcol_pair). 32 bits hold them for n <= HEPA_RING_MAX_N = 2^20; size_t
 * offsets cost the conversion kernel's FP64 build 8 registers (72 -> 80: 6 blocks per SM
 * instead of 7). */
static __device__ __forceinline__ void hepa_pcol_put2(void *limb, unsigned lo, unsigned hi,
                                                      uint64_t w0, uint64_t w1) {
    unsigned char *b = (unsigned char *)limb;
    *(uint2 *)(b + lo) = uint2{(uint32_t)w0, (uint32_t)w1};
    *(uint16_t *)(b + hi) = (uint16_t)((w0 >> 32) | (w1 >> 32) << 8);
}
/* Words x and x + 1 (x even) in one 8-byte and one 2-byte access: the inner product's key
 * pairs. */
static __device__ __forceinline__ ulonglong2 hepa_pack5_get2(const void *limb, size_t n, size_t x) {
    const uint2 lo = ((const uint2 *)limb)[x / 2];
    const unsigned hi = *(const uint16_t *)((const unsigned char *)limb + 4 * n + x);
    return ulonglong2{lo.x | (uint64_t)(hi & 0xFF) << 32, lo.y | (uint64_t)(hi >> 8) << 32};
}
#endif

/* Word x of a limb stored at `limb` (packed or not). */
HEPA_HD uint64_t hepa_ksk_word(const unsigned char *limb, int packed, size_t n, size_t x) {
    return packed ? hepa_pack5_get(limb, n, x) : ((const uint64_t *)limb)[x];
}

#endif /* HEPA_SRC_RNS_KSK_LAYOUT_H */
