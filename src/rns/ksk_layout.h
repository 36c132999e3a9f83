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
 * the inner product and the conversion kernel's pairs hepa_pack5_get2 / put2 below;
 * ntt_tile_kernel's XF 6 still writes them out by hand (its PTX changed with the call and was not
 * measured), and the fused row pass reads whole rows from its own copy in shared memory. */
HEPA_HD uint64_t hepa_pack5_get(const void *limb, size_t n, size_t x) {
    const unsigned char *b = (const unsigned char *)limb;
    return ((const uint32_t *)limb)[x] | (uint64_t)b[4 * n + x] << 32;
}
HEPA_HD void hepa_pack5_put(void *limb, size_t n, size_t x, uint64_t w) {
    ((uint32_t *)limb)[x] = (uint32_t)w;
    ((unsigned char *)limb)[4 * n + x] = (unsigned char)(w >> 32);
}

#ifdef __CUDACC__
/* Words x and x + 1 (x even) in one 8-byte and one 2-byte access: the inner product's key pairs
 * and the conversion kernel's pairs of targets. */
static __device__ __forceinline__ ulonglong2 hepa_pack5_get2(const void *limb, size_t n, size_t x) {
    const uint2 lo = ((const uint2 *)limb)[x / 2];
    const unsigned hi = *(const uint16_t *)((const unsigned char *)limb + 4 * n + x);
    return ulonglong2{lo.x | (uint64_t)(hi & 0xFF) << 32, lo.y | (uint64_t)(hi >> 8) << 32};
}
static __device__ __forceinline__ void hepa_pack5_put2(void *limb, size_t n, size_t x, uint64_t w0,
                                                       uint64_t w1) {
    ((uint2 *)limb)[x / 2] = uint2{(uint32_t)w0, (uint32_t)w1};
    *(uint16_t *)((unsigned char *)limb + 4 * n + x) = (uint16_t)((w0 >> 32) | (w1 >> 32) << 8);
}
#endif

/* Word x of a limb stored at `limb` (packed or not). */
HEPA_HD uint64_t hepa_ksk_word(const unsigned char *limb, int packed, size_t n, size_t x) {
    return packed ? hepa_pack5_get(limb, n, x) : ((const uint64_t *)limb)[x];
}

#endif /* HEPA_SRC_RNS_KSK_LAYOUT_H */
