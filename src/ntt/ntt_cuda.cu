// src/ntt/ntt_cuda.cu — negacyclic NTT kernels for all live limbs of a polynomial, bit-exact
// with the host transforms (ntt_ref.c, ntt_host.c): same tables, same butterflies
// (hepa_butterfly_ct_lazy / hepa_butterfly_gs_lazy from hepa/modarith.h), same lazy ranges.
//
// Indexing. Element x of a limb (x in [0, n)) meets its partner x + 2^B at the stage that acts on
// bit B of the index (forward: B = log n - 1 down to 0; inverse: 0 up to log n - 1), with twiddle
// table entry (n >> (B+1)) + (x >> (B+1)) — the host loops' w[m + i] written in terms of x.
//
// Decomposition. A *tile* is a set of elements closed under the stages a kernel runs: all
// elements whose index agrees outside a window of GB bits (the tile-local index e). Each thread
// keeps 8 elements in registers ("slots": 3 bits of e), the 32 lanes of a warp hold 5 more bits
// (the low CB lane bits pick one of C = 2^CB adjacent columns instead), the warps of a block the
// rest. A stage on a slot bit is a butterfly between two registers of one thread. In the inverse
// column tiles of n = 2^16, 2^17 and the single tiles, a stage on a lane bit first swaps that
// lane bit with a slot bit through __shfl_xor_sync: each thread sends 4 of its 8 values to its
// partner lane, after which every butterfly pair lies in one thread (seed 000's warp-shuffle
// exchange, without duplicated butterflies). A stage on a warp bit — and on a lane bit
// everywhere else, which measured faster there (see lane_bits_smem) — first exchanges the tile
// through shared memory so that the bits needed next become slot bits.
// Which bit sits where at every stage is decided at compile time (Schedule below), so index and
// twiddle arithmetic folds into constants and identical twiddle loads are shared.
//
//   n <= 2^9:  ntt_small_kernel, one block per limb, one stage per __syncthreads (simple).
//   n in [2^10, 2^12]: one tile = one limb: one kernel, one read and one write of the data.
//   n in [2^13, 2^17]: two kernels (four-step style), each one read and one write. Columns:
//     the top log n - 8 bits, tiles of 8 adjacent columns (rows of 64 bytes, coalesced). Rows:
//     the low 8 bits, one warp per 256-element row (4 rows per block): registers, shuffles and
//     warp-private shared memory only, no block barrier.
//   n in [2^18, 2^20]: three kernels: the column bits split in two column passes of 5 or 6
//     bits each (one tile of the top bits would need more threads than a block holds).
// Lazy ranges: forward values stay in [0, 4q) between passes and are reduced to [0, q) at the
// final store; inverse values stay in [0, 2q), the last stage folds in n^(-1), and the final
// store reduces to [0, q).
#include <cuda_runtime.h>

#include <type_traits>

#include "device/grid_sync.cuh"
#include "device/internal.h"
#include "device/pdl.cuh"
#include "hepa/modarith.h"
#include "ntt/f64_arith.cuh"
#include "rns/ckks_core.h"
#include "rns/ksk_layout.h"
#include "rns/conv_core.h"
#include "rns/internal.h"

// Measured on an H100 and dropped (n = 2^16, L = 34 unless said):
//  - copying a row block's twiddles to shared memory first, through registers and a block
//    barrier: forward 65.3 µs vs 55.9 µs through the read-only cache (commit 7a03866). (The
//    warp-private cp.async copy kept now, STAGED TWIDDLES below, is a little faster for n >= 2^16.)
//  - persistent blocks prefetching the next tile while transforming the current one: 60.5 vs
//    56.2 µs, ~10% slower at n = 2^17 (commit 42aab39);
//  - 1, 2 or 8 rows per row-kernel block instead of 4: equal within 1%.
//  - column tiles of 16 adjacent columns (128-byte rows) instead of 8: forward 54.0 vs 51.5 µs,
//    n = 2^17, L = 64: 198 vs 182 µs.
// Where the time goes (H100, cold, forward / inverse µs at n = 2^16, L = 34 and n = 2^17, L = 64;
// experiment builds that compute wrong results, not kept): as is 51.5 / 56.8, 182 / 187;
// butterflies without the modular multiplication 40.3 / 44.8, 148 / 162; that and every twiddle
// load hitting one 4 KiB block 34.7 / 34.3, 113 / 113. So even a transform with free arithmetic
// and free twiddles moves its two passes at only ~70% of the copy bandwidth (floor 24 µs), and
// the multiplications are not hidden behind the memory traffic. Per kernel (ncu, base clocks):
// forward columns 25.4 µs (15.9 without multiplications), rows 30.3 µs (27.8 with hot twiddles,
// 25.4 without multiplications).
// The forward butterflies on the FP64 pipe instead (variant F of bench/experiments/
// butterfly_floor.cu, exact only for q < 2^50, so for 40-bit limbs; an experiment build that read
// w' as the double twiddle, converted on the first pass's load and reduced and converted on the
// last pass's store): 51.2 -> 42.2 µs cold, 49.5 -> 38.0 µs hot, two runs each (H100; results in
// bench/results/2026-11-22-h100-ntt-arith-floor.md, section 5). Built in for q < 2^47 since:
// see FP64 LIMBS.
// ncu (caches flushed): the column kernel keeps the IMAD ("fmaheavy") pipe 72% busy; the row
// kernel spends 51% of its warp time waiting on global loads, mostly twiddles (16 bytes per
// element per transform, as much as the data). A 62-bit Shoup butterfly is ~30 integer
// instructions, 19 of them IMAD-class.
//
// Stages on lane bits, per direction: 0 = swap the lane bit into a register with
// __shfl_xor_sync (seed 000's warp-shuffle scheme), 1 = go through shared memory like warp bits
// (up to 3 bits per round trip). Measured on an H100 (L = 34, cold, µs, shuffles / shared):
//   forward: n = 2^12 12.4 / 12.9, 2^14 18.9 / 18.3, 2^16 54.8 / 51.5, 2^17 111.7 / 103.1
//   inverse: n = 2^12 12.8 / 19.6, 2^14 18.7 / 21.8, 2^16 63.8 / 67.8, 2^17 121.6 / 126.6
// The forward pass meets its lane bits last and brings them in with two round trips; the
// inverse (numbers above from before HEPA_NTT_INV_LOAD_LOW) met them first, pushed its
// unprocessed slot bits onto the lanes and needed two more.
// Since the inverse loads with its first bits in the slots (HEPA_NTT_INV_LOAD_LOW = 2, below),
// a shuffle per lane bit costs more than its share of a round trip in the FP64 kernels, which
// are bound by instruction issue: ncu (H100, 2^16/34 40-bit, before) counted 116 / 100
// instructions per element in the inverse row / column pass against 95 / 78 in the forward's.
// Now the inverse's lane bits go through shared memory in row tiles (GB = 8: two round trips
// instead of five swaps) and in column tiles of up to 7 bits; column tiles of 8 or 9 bits
// (n = 2^16, 2^17) and single tiles (n = 2^10 .. 2^12) keep the swaps. Same-call A/B on an H100
// (hepa-bench --gpu-suite, inverse NTT hot / cold µs; load of the top bits with swaps -> load of
// the low bits with swaps everywhere -> this):
//   2^16/34 40-bit 35.7 / 36.9 -> 33.2 / 34.7 -> 33.0 / 34.2; 60-bit 51.7 / 53.0 -> 50.3 / 51.2
//   -> 49.4 / 50.5; 2^17/64 40-bit 132.9 / 131.6 -> 124.0 / 123.1 -> 124.0 / 123.3; 60-bit
//   177.0 / 177.4 -> 172.0 / 172.0 -> 169.0 / 169.0; 2^15/34 40-bit 20.4 / 22.8 -> 20.0 / 22.6
//   -> 19.5 / 21.9. Shared memory also for the column tiles of 8 and 9 bits measured 0.5-2 µs
//   slower at 2^16 40-bit and 2^17 60-bit; also for the single tiles, mixed within noise.
#ifndef HEPA_NTT_LANE_SMEM_FWD
#define HEPA_NTT_LANE_SMEM_FWD 1
#endif
#ifndef HEPA_NTT_LANE_SMEM_INV // single tiles (n = 2^10 .. 2^12)
#define HEPA_NTT_LANE_SMEM_INV 0
#endif
#ifndef HEPA_NTT_LANE_SMEM_INV_ROWS // row tiles
#define HEPA_NTT_LANE_SMEM_INV_ROWS 1
#endif
#ifndef HEPA_NTT_LANE_SMEM_INV_COLS_MAXGB // column tiles of at most this many bits
#define HEPA_NTT_LANE_SMEM_INV_COLS_MAXGB 7
#endif
__host__ __device__ constexpr bool lane_bits_smem(int GB, int CB, bool INV) {
    return !INV      ? HEPA_NTT_LANE_SMEM_FWD
           : CB == 0 ? (GB == 8 ? HEPA_NTT_LANE_SMEM_INV_ROWS : HEPA_NTT_LANE_SMEM_INV)
                     : GB <= HEPA_NTT_LANE_SMEM_INV_COLS_MAXGB;
}
// Inverse row tiles load with the slots on the low e-bits (see load_map). Measured on an H100
// (L = 34, cold, inverse µs, n = 2^12 / 2^14 / 2^16 / 2^17): top-bit load 12.7 / 18.7 / 64.2 /
// 121.5; low-bit load with shuffles 13.7 / 18.4 / 56.5 / 109.7; low-bit load with shared-memory
// lane exchanges 12.8 / 18.3 / 56.5 / 108.4 (integer butterflies, before the FP64 path; the
// shuffles were kept then). HEPA_NTT_INV_LOAD_LOW = 2 (since 2026-11-24): column tiles too
// (inverse µs above).
#ifndef HEPA_NTT_INV_LOAD_LOW
#define HEPA_NTT_INV_LOAD_LOW 2
#endif
#ifndef HEPA_NTT_VLOAD_INT
#define HEPA_NTT_VLOAD_INT 1 // VECTOR LOADS also in the kernels built without FP64 limbs
#endif
#ifndef HEPA_NTT_VLOAD
#define HEPA_NTT_VLOAD 2 // VECTOR LOADS (tile_body)
#endif

namespace hepa_ntt_cuda {

// ---- the compile-time schedule ------------------------------------------------------------

// Where the GB bits of e live: slot bit i holds e-bit ps[i]; lane bit CB + j holds e-bit pl[j];
// the other e-bits are spread over the warp index in increasing order.
struct Map {
    int ps[3];
    int pl[5];
};

enum Action { STAGE = 0, SWAP = 1, EXCHANGE = 2 };

struct Step {
    int action;  // before the butterflies: nothing, a slot/lane swap, or a shared-memory exchange
    int slot;    // SWAP: the slot bit swapped; every step: the slot bit then processed
    int lane_j;  // SWAP: the lane e-bit index j (lane bit CB + j)
    int bit;     // the tile e-bit processed (STAGE/SWAP/EXCHANGE); -1 for restore steps
    Map map;     // the mapping after the action
};

struct Schedule {
    Step steps[12 + 1]; // GB stages, then at most one restore exchange
    int count;           // total steps
    int stages;          // the first `stages` steps carry butterflies
};

__host__ __device__ constexpr int slot_of(const Map &m, int bit) {
    return m.ps[0] == bit ? 0 : m.ps[1] == bit ? 1 : m.ps[2] == bit ? 2 : -1;
}
__host__ __device__ constexpr int lane_of(const Map &m, int bit, int LB) {
    for (int j = 0; j < LB; ++j)
        if (m.pl[j] == bit) return j;
    return -1;
}
__host__ __device__ constexpr int owned(const Map &m, int LB) {
    int o = (1 << m.ps[0]) | (1 << m.ps[1]) | (1 << m.ps[2]);
    for (int j = 0; j < LB; ++j) o |= 1 << m.pl[j];
    return o;
}
__host__ __device__ constexpr Map initial_map(int GB, int LB) {
    Map m{};
    m.ps[0] = GB - 3;
    m.ps[1] = GB - 2;
    m.ps[2] = GB - 1;
    for (int j = 0; j < 5; ++j) m.pl[j] = j < LB ? j : 0;
    return m;
}
// The mapping the kernel loads with. Default: slots on the top 3 e-bits, lanes on the low ones
// (coalesced 8-byte loads). Inverse tiles with HEPA_NTT_INV_LOAD_LOW (row tiles from 1, column
// tiles from 2): slots on e-bits 0..2, lanes on 3 .. 7 - CB, so the inverse, which meets the low
// bits first, starts with them in registers. (A row tile's thread then loads 64 contiguous
// bytes; a column tile's lanes still read whole 64-byte rows of C = 8 columns, as before.)
__host__ __device__ constexpr Map load_map(int GB, int CB, bool INV) {
    const int LB = 5 - CB;
    if (!(HEPA_NTT_INV_LOAD_LOW && INV && (CB == 0 || HEPA_NTT_INV_LOAD_LOW >= 2)))
        return initial_map(GB, LB);
    Map m{};
    m.ps[0] = 0;
    m.ps[1] = 1;
    m.ps[2] = 2;
    for (int j = 0; j < 5; ++j) m.pl[j] = j < LB ? 3 + j : 0;
    return m;
}
__host__ __device__ constexpr void do_swap(Map &m, int slot, int j) {
    const int t = m.ps[slot];
    m.ps[slot] = m.pl[j];
    m.pl[j] = t;
}

// Simulates the stages: forward processes e-bits GB-1 .. 0, inverse 0 .. GB-1.
//  - a bit in a slot: butterflies at once;
//  - a bit on a lane: swap it with a slot holding an already processed bit (else the slot whose
//    bit is needed last), then butterflies;
//  - a bit on a warp: shared-memory exchange bringing it and the next unprocessed warp bits into
//    the slots (topped up with processed slot bits, so pending bits do not leave the slots).
// Then, for row tiles, bring the lanes back to the low e-bits (coalesced stores).
__host__ __device__ constexpr Schedule make_schedule(int GB, int CB, bool INV) {
    const int LB = 5 - CB;
    const bool lane_smem = lane_bits_smem(GB, CB, INV);
    Schedule s{};
    Map m = load_map(GB, CB, INV);
    int done = 0, c = 0;
    for (int step = 0; step < GB; ++step) {
        const int b = INV ? step : GB - 1 - step;
        Step st{};
        st.bit = b;
        int i = slot_of(m, b);
        if (i >= 0) {
            st.action = STAGE;
        } else if (!lane_smem && lane_of(m, b, LB) >= 0) {
            const int j = lane_of(m, b, LB);
            int pick = -1;
            for (int t = 0; t < 3; ++t)
                if ((done >> m.ps[t]) & 1) pick = t;
            if (pick < 0) {
                pick = 0;
                for (int t = 1; t < 3; ++t)
                    if (INV ? m.ps[t] > m.ps[pick] : m.ps[t] < m.ps[pick]) pick = t;
            }
            do_swap(m, pick, j);
            st.action = SWAP;
            st.lane_j = j;
            i = pick;
        } else {
            // shared-memory exchange: b and the next bits not in a slot (warp bits, and lane
            // bits when lane_smem), topped up with processed slot bits
            int np[3] = {0, 0, 0}, cnt = 0;
            const int own = lane_smem ? ((1 << m.ps[0]) | (1 << m.ps[1]) | (1 << m.ps[2]))
                                      : owned(m, LB);
            for (int t = step; t < GB && cnt < 3; ++t) {
                const int bb = INV ? t : GB - 1 - t;
                if (!((own >> bb) & 1)) np[cnt++] = bb;
            }
            for (int t = 0; t < 3 && cnt < 3; ++t)
                if ((done >> m.ps[t]) & 1) np[cnt++] = m.ps[t];
            const int own_all = owned(m, LB);
            for (int bb = 0; bb < GB && cnt < 3; ++bb)
                if (((done >> bb) & 1) && !((own_all >> bb) & 1)) np[cnt++] = bb;
            for (int t = 0; t < 3 && cnt < 3; ++t)
                if (!((done >> m.ps[t]) & 1)) np[cnt++] = m.ps[t];
            // slot bits leaving the slots take the places of lane bits entering them
            int out_bits[3] = {0, 0, 0}, nout = 0;
            for (int t = 0; t < 3; ++t) {
                const int bb = m.ps[t];
                if (bb != np[0] && bb != np[1] && bb != np[2]) out_bits[nout++] = bb;
            }
            int o = 0;
            for (int j = 0; j < LB; ++j)
                if (m.pl[j] == np[0] || m.pl[j] == np[1] || m.pl[j] == np[2]) m.pl[j] = out_bits[o++];
            m.ps[0] = np[0];
            m.ps[1] = np[1];
            m.ps[2] = np[2];
            st.action = EXCHANGE;
            i = slot_of(m, b);
        }
        st.slot = i;
        st.map = m;
        s.steps[c++] = st;
        done |= 1 << b;
    }
    s.stages = c;
    // Restore. Column tiles (CB > 0) store rows of C adjacent words whatever the e-bits on the
    // other lanes are: nothing to do. Row tiles need the lanes back on the low e-bits for
    // coalesced stores: one exchange through shared memory (cheaper than a swap per lane bit).
    bool lanes_home = true;
    for (int j = 0; j < LB; ++j) lanes_home = lanes_home && m.pl[j] == j;
    if (CB == 0 && !lanes_home) {
        Step st{};
        st.action = EXCHANGE;
        st.slot = 0;
        st.bit = -1;
        st.map = initial_map(GB, LB);
        s.steps[c++] = st;
    }
    s.count = c;
    return s;
}

template <int GB, int CB, bool INV> struct Sched {
    static constexpr Schedule value = make_schedule(GB, CB, INV);
};

// e-bits of slot combination k under map M (compile-time)
template <int P0, int P1, int P2> struct SlotOff {
    static __host__ __device__ constexpr int of(int k) {
        return ((k & 1) << P0) | (((k >> 1) & 1) << P1) | (((k >> 2) & 1) << P2);
    }
};

// ---- the exchange buffer's layout ---------------------------------------------------------
// Element e (with column c) of a tile sits in the exchange buffer at word phys(e)·C + c, where
// phys flips low bits of e by linear functions of its higher bits, so that the 64-bit accesses of
// a half-warp (16 lanes, one 128-byte wavefront) hit 16 different banks (bank = word mod 16):
//  - C = 8 (column tiles): the bank is c + 8·(phys(e) & 1); e-bit 0 is XORed with the parity of
//    the other e-bits, so any lane e-bit changes the bank's top bit.
//  - C = 1 (row tiles, single tiles): the bank is phys(e) & 15; e-bits 0..3 are XORed with
//    swz_low(e >> 4), a linear map found by search so that every exchange of every schedule in
//    use spreads its half-warps over 16 banks (checked by a static_assert in ntt_tile_kernel).
//    (The search: the fewest shift terms, -3 .. 7, whose XOR passes that check for the row and
//    single-tile schedules of both directions and ntt_mulrows_kernel's turn. It changed with
//    the inverse rows' shared-memory lane exchanges, which x ^ x>>1 ^ x>>3 ^ x<<2 failed.)
// phys is linear over GF(2) (phys(a ^ b) = phys(a) ^ phys(b)) and a bijection of [0, 2^GB).
// Before (phys(e) = e), ncu on an H100 (n = 2^16, L = 34) counted 4-way conflicts in most row
// exchanges and 2-way ones in half the column exchanges: 35-67% of the kernels' shared-memory
// wavefronts were excess.
__host__ __device__ constexpr unsigned swz_low(unsigned x) {
    return ((x << 3) ^ (x << 2) ^ (x << 1) ^ (x >> 1) ^ (x >> 3)) & 15u;
}
__host__ __device__ constexpr unsigned parity(unsigned x) {
    x ^= x >> 16;
    x ^= x >> 8;
    x ^= x >> 4;
    x ^= x >> 2;
    x ^= x >> 1;
    return x & 1u;
}
__host__ __device__ constexpr unsigned phys(unsigned e, int CB) {
    return CB == 3 ? e ^ parity(e >> 1) : e ^ swz_low(e >> 4);
}
template <int CB> __device__ __forceinline__ unsigned phys_rt(unsigned e) {
    static_assert(CB == 0 || CB == 3, "exchange layouts exist for 1 and 8 columns");
    if constexpr (CB == 3)
        return e ^ ((unsigned)__popc(e >> 1) & 1u);
    else
        return e ^ swz_low(e >> 4);
}
// Rank over GF(2) of the bank vectors of the low 4 lanes of a half-warp under map m: true when
// its 16 lanes hit 16 different banks.
__host__ __device__ constexpr bool half_warp_spread(const Map &m, int CB) {
    unsigned v[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; ++i) {
        if (i < CB) v[i] = 1u << i; // column bits of the lane: bank bits 0 .. CB - 1
        else {
            const unsigned p = phys(1u << m.pl[i - CB], CB); // lane bit i holds e-bit pl[i - CB]
            v[i] = CB == 3 ? (p & 1u) << 3 : p & 15u;
        }
    }
    int rank = 0;
    for (int bit = 0; bit < 4; ++bit) {
        int piv = -1;
        for (int i = 0; i < 4; ++i)
            if (piv < 0 && ((v[i] >> bit) & 1u)) piv = i;
        if (piv < 0) continue;
        const unsigned pv = v[piv];
        v[piv] = 0;
        ++rank;
        for (int i = 0; i < 4; ++i)
            if ((v[i] >> bit) & 1u) v[i] ^= pv;
    }
    return rank == 4;
}
// Every exchange of the schedule writes and reads without bank conflicts.
__host__ __device__ constexpr bool exchanges_conflict_free(int GB, int CB, bool INV) {
    const Schedule s = make_schedule(GB, CB, INV);
    Map prev = load_map(GB, CB, INV);
    for (int i = 0; i < s.count; ++i) {
        if (s.steps[i].action == EXCHANGE &&
            !(half_warp_spread(prev, CB) && half_warp_spread(s.steps[i].map, CB)))
            return false;
        prev = s.steps[i].map;
    }
    return true;
}

// The thread's own e-bits (lanes and warps) under the step's mapping.
template <int GB, int CB, int STEP, bool INV>
__device__ __forceinline__ unsigned thread_base(unsigned lane, unsigned warp) {
    constexpr Map m = Sched<GB, CB, INV>::value.steps[STEP].map;
    constexpr int LB = 5 - CB;
    constexpr int own = owned(m, LB);
    unsigned b = 0;
#pragma unroll
    for (int j = 0; j < LB; ++j) b |= ((lane >> (CB + j)) & 1u) << m.pl[j];
    int w = 0;
#pragma unroll
    for (int bit = 0; bit < GB; ++bit)
        if (!((own >> bit) & 1)) b |= ((warp >> w++) & 1u) << bit;
    return b;
}

template <int GB, int CB, bool INV> struct LoadMap {
    static constexpr Map value = load_map(GB, CB, INV);
};

// The thread's own e-bits under the load mapping (before the first step).
template <int GB, int CB, bool INV>
__device__ __forceinline__ unsigned load_base(unsigned lane, unsigned warp) {
    constexpr Map m = LoadMap<GB, CB, INV>::value;
    constexpr int LB = 5 - CB;
    constexpr int own = owned(m, LB);
    unsigned b = 0;
#pragma unroll
    for (int j = 0; j < LB; ++j) b |= ((lane >> (CB + j)) & 1u) << m.pl[j];
    int w = 0;
#pragma unroll
    for (int bit = 0; bit < GB; ++bit)
        if (!((own >> bit) & 1)) b |= ((warp >> w++) & 1u) << bit;
    return b;
}

struct Ctx {
    const ulonglong2 *tw;  // this limb's (w, w') pairs for the direction
    const ulonglong2 *tws; // row tiles: the row's twiddles staged in shared memory (see Staged)
    const double *twd;     // f64: this limb's twiddles as doubles for the direction (tw64)
    const double *twsd;    // f64 row tiles: the row's staged doubles
    const double *twr;     // f64: the direction's ROW FACTORS (GENERATED ROW TWIDDLES)
    uint64_t q;
    uint64_t n_inv, n_inv_shoup, n_inv_w, n_inv_w_shoup;
    bool f64;              // FP64 butterflies (ntt_tile_kernel, q < 2^47; see FP64 LIMBS)
    double qd, qi;         // f64: q and 1/q
};
// The context of limb `limb` (modulus index: its tables at tables + 4·n·limb) for a direction.
__device__ __forceinline__ Ctx ctx_of(const hepa_dev_limb &lc, const uint64_t *tables, size_t n,
                                      int limb, bool inv) {
    Ctx c;
    c.tw = reinterpret_cast<const ulonglong2 *>(tables + 4 * n * (size_t)limb + (inv ? 2 * n : 0));
    c.tws = nullptr;
    c.twd = c.twsd = c.twr = nullptr;
    c.q = lc.q;
    c.n_inv = lc.n_inv;
    c.n_inv_shoup = lc.n_inv_shoup;
    c.n_inv_w = lc.n_inv_w;
    c.n_inv_w_shoup = lc.n_inv_w_shoup;
    c.f64 = false;
    c.qd = c.qi = 0;
    return c;
}

// Swap slot bit I with lane bit CB + J (see the file comment): after the call slot bit I holds
// the e-bit the lane held and vice versa.
template <int I, int LANEBIT>
__device__ __forceinline__ void swap_slot_lane(uint64_t (&v)[8], unsigned lane) {
    const bool mine = (lane >> LANEBIT) & 1u;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        if ((k >> I) & 1) continue;
        const int k1 = k | (1 << I);
        const uint64_t send = mine ? v[k] : v[k1];
        const uint64_t recv = __shfl_xor_sync(0xffffffffu, send, 1 << LANEBIT);
        if (mine)
            v[k] = recv;
        else
            v[k1] = recv;
    }
}

// STAGED TWIDDLES (STG). Row tiles (GB = 8, CB = 0, S = 0: one warp per 256-element row) copy
// the 255 twiddle pairs their eight stages use into warp-private shared memory with cp.async,
// right after issuing their data loads, so that the row waits for one round of loads instead of
// one per stage. The stage on bit B uses table entries (n >> (B+1)) + row·2^(7-B) + j,
// j < 2^(7-B): a contiguous run, staged at tws[2^(7-B) + j] (entry 0 unused). ncu (n = 2^16,
// L = 34, forward row kernel): the share of warp cycles waiting on global loads went from 44%
// to 18%, but the kernel is mostly bound by instruction issue, so the gain is small.
// Only for n >= 2^16 (HEPA_NTT_STAGE_MIN_LOGN): below, the tables stay in L2 and staging
// measured slower. H100, µs, min of 2 runs, swizzled exchanges without -> with staging, same
// run (L = 34 unless said; cold):
//   forward  2^15 29.4 -> 29.9, 2^16 51.1 -> 50.9, 2^17 (L = 64) 180.2 -> 176.4
//   inverse  2^15 31.0 -> 30.4, 2^16 58.5 -> 55.8, 2^17 (L = 64) 190.1 -> 188.6
//   negacyclic multiply 2^14 48.9 -> 50.9, 2^16 163.1 -> 163.3, 2^17 (L = 64) 555.2 -> 554.1
#ifndef HEPA_NTT_STAGE_MIN_LOGN
#define HEPA_NTT_STAGE_MIN_LOGN 16
#endif
// (cp.async needs sm_80; older targets copy through registers.)
__device__ __forceinline__ void cp_async16(void *smem_dst, const void *gmem_src) {
#if __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(gmem_src) : "memory");
#else
    *static_cast<ulonglong2 *>(smem_dst) = __ldg(static_cast<const ulonglong2 *>(gmem_src));
#endif
}
__device__ __forceinline__ void cp_async8(void *smem_dst, const void *gmem_src) {
#if __CUDA_ARCH__ >= 800
    const unsigned d = (unsigned)__cvta_generic_to_shared(smem_dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(d), "l"(gmem_src) : "memory");
#else
    *static_cast<double *>(smem_dst) = __ldg(static_cast<const double *>(gmem_src));
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void cp_async_wait_all() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n\tcp.async.wait_group 0;\n" ::: "memory");
#endif
}
// Waits for all but the thread's most recently committed group (groups complete in order).
__device__ __forceinline__ void cp_async_wait_but_last() {
#if __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
#endif
}

// PDL (programmatic dependent launch, device/pdl.cuh). ntt_tile_kernel, ks_rows_inner_kernel and
// modupn_cols_kernel are launched with programmatic stream serialization (launch_k); those three
// and modup1_cols_kernel wait and trigger as pdl.cuh says. The tile kernels run the wait in
// tile_body (PW), the last pass's FP64 row tiles after a prologue that reads only the ring's
// tables (PDL PROLOGUE there). One launch waits at its end instead: ModUp's last digit, which
// needs nothing from the grid before it (EARLY LAST DIGIT, modupn_cols_kernel).
// Measured on an H100 (same calls, against no PDL): forward / inverse NTT 2^16/34 60-bit cold
// 51.3 -> 49.7, 57.2 -> 55.5 µs; negacyclic multiply 158 -> 151. modup1_cols_kernel is launched
// without the attribute: with PDL on all three, tensor + key switch at 2^17/61/P=1 measured
// 6269 -> 6348 µs (two runs each; also with tiles + columns only, 6311), while tiles + rows
// measured 6265 and each family alone 6246-6251 (not understood). modupn_cols_kernel gained 2-3
// µs with it (HEPA_MODUPN_PDL).
// %nsmid: at least the SM count (it may overcount a little). FIRST WAVE ONLY (tile_body) and
// the MULROWS PROLOGUE count a grid's first wave as the first nsmid() times blocks-per-SM blocks.
__device__ __forceinline__ unsigned nsmid() {
    unsigned n;
    asm("mov.u32 %0, %%nsmid;" : "=r"(n));
    return n;
}

// Copies the 255 twiddle pairs of row `row` (n >> 8 rows of 256 elements) into warp-private
// shared memory: tile `tile`'s 256 pairs at base + 512·tile words (see STAGED TWIDDLES). The
// whole warp calls it; returns where they are. wait = false: only issues the copies (the caller
// then runs cp_async_wait_all and __syncwarp before reading them).
__device__ __forceinline__ const ulonglong2 *stage_row_twiddles(const ulonglong2 *tw,
                                                                uint64_t *base, unsigned tile,
                                                                size_t row, size_t n, unsigned lane,
                                                                bool wait = true) {
    ulonglong2 *tws = reinterpret_cast<ulonglong2 *>(base) + (size_t)tile * 256;
#pragma unroll
    for (unsigned t = 0; t < 8; ++t) {
        const unsigned e = lane + 32 * t;
        if (e == 0) continue;
        const unsigned lg = 31 - __clz(e), P = 1u << lg; // stage B = 7 - lg
        cp_async16(tws + e, tw + (n >> (8 - lg)) + row * P + (e - P));
    }
    if (wait) {
        cp_async_wait_all();
        __syncwarp(); // the other lanes' copies are visible
    }
    return tws;
}

// The same for an FP64 limb's double twiddles (Ctx.twd), at (double *)base + 512·tile: entries
// 2m and 2m + 1 (m >= 1) lie in one stage's run, whose start is even, so they come in 16-byte
// copies; entry 1 alone in an 8-byte one.
__device__ __forceinline__ const double *stage_row_twiddles_f64(const double *tw, uint64_t *base,
                                                               unsigned tile, size_t row,
                                                               size_t n, unsigned lane) {
    double *tws = reinterpret_cast<double *>(base) + (size_t)tile * 512;
#pragma unroll
    for (unsigned t = 0; t < 4; ++t) {
        const unsigned m = lane + 32 * t, e = 2 * m;
        if (m == 0) {
            cp_async8(tws + 1, tw + (n >> 8) + row);
            continue;
        }
        const unsigned lg = 31 - __clz(e), P = 1u << lg;
        cp_async16(tws + e, tw + (n >> (8 - lg)) + row * P + (e - P));
    }
    cp_async_wait_all();
    __syncwarp();
    return tws;
}

// The (up to) four twiddle pairs of one stage on slot bit I, tile e-bit b (global bit B = b + S),
// pair p being the butterfly of the p-th slot index k with bit I clear. gxt: the thread's own
// global index bits under that stage's mapping. Slot bits are disjoint from the thread's bits,
// so the table index is hi + (slot offset >> (b+1)); equal indices are loaded once.
// FP: an FP64 limb's doubles instead (into .x; .y unused).
template <int I, int P0, int P1, int P2, int b, int S, bool STAGED, bool FP>
__device__ __forceinline__ void load_twiddles(ulonglong2 (&tw)[4], const Ctx &c, unsigned gxt,
                                              unsigned logn) {
    constexpr int B = b + S;
    static_assert(!STAGED || (S == 0 && b < 8), "staged twiddles are for row tiles");
    const unsigned hi = STAGED ? (1u << (7 - b)) + ((gxt & 255u) >> (b + 1))
                               : ((1u << logn) >> (B + 1)) + (gxt >> (B + 1));
    int p = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        if ((k >> I) & 1) continue;
        const unsigned i = hi + ((unsigned)SlotOff<P0, P1, P2>::of(k) >> (b + 1));
        if constexpr (FP)
            tw[p++].x = bits(STAGED ? c.twsd[i] : __ldg(c.twd + i));
        else
            tw[p++] = STAGED ? c.tws[i] : __ldg(c.tw + i);
    }
}

// FP64 LIMBS. For a limb with q < 2^47 (HEPA_DEV_F64_BELOW, device/internal.h; rings with such a
// limb launch the F64 instantiations) ntt_tile_kernel runs the butterflies on the FP64 pipe
// (2.46x the integer Shoup butterfly's rate in bench/experiments/butterfly_floor.cu, variant F).
// The load converts the words to doubles, the stages keep signed integers exactly in doubles (the
// registers and exchanges carry their bits), and the store reduces them to [0, q) and converts
// back, so every pass reads and writes words in [0, q) and the results are the integer path's.
// f64_mulmod(y, w) = y·w - qt·q exactly: h + l = y·w (l exact from the FMA), qt = round(h/q) by
// adding and subtracting 1.5·2^52 (valid below 2^51), fma(-qt, q, h) exact (its result is an
// integer below 2^53). With |y| <= Y·q and w < q, h·(1/q) is within Y·q·2^-52 of y·w/q, so
// |qt - y·w/q| <= 1/2 + Y·q·2^-52 and |t| <= (1/2 + Y·q·2^-52)·q; for q < 2^47 and Y <= 13 that
// is |t| < 0.91q, and |h/q| < 13·2^47 < 2^51. The same holds for a twiddle with |w| < q of
// either sign (GENERATED ROW TWIDDLES). Forward: x ± t grows by less than q a stage; a pass
// starts from [0, q) and runs at most 12 stages (the one-pass kernel of 2^12), so values stay
// below 13q and the bounds hold throughout. Counted with the bound on |t| for the input at hand,
// (1/2 + Y/32)·q for |y| <= Y·q, the growth is smaller: from Y_0 = 1, Y_(s+1) = Y_s + 1/2 +
// Y_s/32 gives Y_8 < 5.75, Y_9 < 6.43, Y_16 < 11.82, Y_17 < 12.69, so the 16 or 17 stages of
// the two passes of an FP64 INTERMEDIATE forward (below) need no reduction in between.
// Inverse: the difference goes through f64_mulmod (|.| < 0.91q); the sum is reduced (f64_reduce:
// |.| <= q/2 + 1) only at the stages on tile bits 2, 5, 8 and 11 (RED of stage): a pass starts from
// [0, q), so the stages on bits 3k, 3k + 1 and 3k + 2 see values below q, 2q and 4q, differences
// below 8q and, at the scaled last stage, a sum below 8q: all within f64_mulmod's Y <= 13. (Until
// 2026-11-23 every sum was reduced.)
// The two passes of an FP64 INTERMEDIATE inverse (below) reduce at other bits, counted more
// sharply: the two inputs of a butterfly have gone through the same earlier stages, so they have
// the same range, and |x - y| is below one range's width, not two bounds. From [0, q) a run of sums
// stays in [0, 2^k·q); a value that went through f64_mulmod (or f64_reduce) and then k sums has |.|
// < 0.91q·2^k. First pass (rows, 8 bits, from [0, q)): differences below q, 2q, 4q, 8q at bits 0-3,
// the sums reduced at bit 3 (|.| < 0.91q), differences below 1.82q, 3.64q, 7.28q at bits 4-6,
// reduced at 6, and the pass stores |.| < 1.82q + 2 as it is. Last pass (from that): differences
// below 3.64q and 7.28q at bits 0 and 1, reduced at 1, 4 and 7 (differences below 7.28q), so the
// scaled last stage (bit 4 to 8) sees sums below 7.28q.
// The twiddles are the limb's doubles (hepa_dev_limb.tw64: the integer w, exact; since b3ce19f,
// before which each butterfly converted the integer table's w). Measured on an H100 when the
// path came (eab828c; hepa-bench --gpu-suite, n = 2^16, L = 34, 40-bit primes, cold / hot µs):
// forward 51.2 / 49.6 -> 46.4 / 43.2, inverse 56.2 / 53.6 -> 54.7 / 50.8 (the kernels with this
// code spill a few words under the 64-register cap); hepa-bench --ks, N = 2^16, 33 Q primes,
// P = 1: multiply + relinearize 1668 -> 1534 µs; N = 2^17, 61 primes: 10.55 -> 9.56 ms.
// Word <-> double conversions use the exponent trick (u2d, d2u: one logic op and one FP64 add)
// instead of cvt, whose 64-bit forms run at a quarter of the FP64 FMA rate on sm_80 / sm_90
// (alone, this measured no faster: these kernels are not bound by that pipe). Since 4f974ff the
// FP64 / integer choice is made once per pass (see stage), and since b3ce19f the twiddles are
// doubles; H100, same-call A/Bs, n = 2^16, L = 34, 40-bit, cold: forward 46.0 -> 43.5 -> 36.7
// µs, inverse 54.4 -> 50.5 -> 43.7 (bench/results/2026-11-23-h100-fp64-ntt-b3ce19f.md).
// (u2d, d2u, f64_round and the _q forms used here: src/ntt/f64_arith.cuh, shared with the base
// conversion kernel)
// FP64 INTERMEDIATE (XF 8 of ntt_tile_kernel). Between the two passes of a plain transform the
// FP64 limbs keep the FP64 path's signed doubles: the first pass stores its values as they are
// instead of the canonical word (f64_out: the reduction, a sign fix-up and the conversion), and
// the last pass takes those bits as they are (no f64_in). Forward: the first pass ends below
// Y_8·q or Y_9·q (2^17) < 6.43q, and the last pass's f64_mulmod inputs stay below Y_16·q <
// 11.82q (above). Inverse: the reductions placed for it (above). (Until 2026-11-24 the first
// pass stored f64_reduce(x), |.| <= q/2 + 1: the forward's bounds then started from |x| < q
// again; the inverse reduced its sums at bits 2 and 5 of both passes. Same call against that,
// two runs, 2^16/34 40-bit, µs: forward hot 27.0 -> 26.8, cold 31.0-31.1 -> 31.1-31.2; inverse
// hot 30.4 -> 29.7-29.9, cold 32.2 -> 31.6, of which the last pass's sign fix-up alone (f64_out's
// reduction dropped) gave 30.3-30.4 -> 29.8 and 32.1-32.2 -> 31.7-31.8; 2^15/34 0-0.3 less;
// 2^17/64 the same.)
// Only the two passes of one transform see these words (run_ntt, n = 2^13 .. 2^17, and
// ntt2_kernel's forward; not the fusions, the negacyclic product or key switching's passes, which
// keep canonical words). Measured on an H100 against canonical words (same call, two runs, 2^16/34
// 40-bit, µs): forward hot 27.3-27.5 -> 26.8-27.1, cold 31.2-31.3 -> 31.1; inverse hot 30.5-30.8 ->
// 30.1-30.5, cold 32.5-32.7 -> 32.0-32.3; 2^14 and 2^15 0.1-0.3 µs less. I had predicted about 4%
// from the instructions removed (6-8 of ~172 per element); these passes are bound by latency more
// than by issue.
#ifndef HEPA_NTT_F64_MID
#define HEPA_NTT_F64_MID                                                                           \
    1 // FP64 INTERMEDIATE (run_ntt, ntt2_kernel) (0: canonical words between the passes)
#endif
__device__ __forceinline__ double f64_mulmod(double y, double w, const Ctx &c) {
    return f64_mulmod_q(y, w, c.qd, c.qi);
}
__device__ __forceinline__ double f64_reduce(double x, const Ctx &c) {
    return f64_reduce_q(x, c.qd, c.qi);
}
// [0, q) from a value of the FP64 path
__device__ __forceinline__ uint64_t f64_canonical(double x, const Ctx &c) {
    return f64_canonical_q(x, c.qd, c.qi);
}
// A kernel built with F64 switches its context to the FP64 path for a limb below the bound.
// q and 1/q come from the limb (hepa_dev_limb.qd, .qi, made at ring creation). Until 69a0db7
// every thread converted q and divided 1.0 / q here (a double division, with its slow-path
// branch): H100, same call, 40-bit: forward 2^16/34 32.5 -> 31.4 µs cold, 2^17/64 118.6 ->
// 115.1, inverse 2^17/64 123.3 -> 116.7, negacyclic multiply 2^17/64 296 -> 279.
// (bench/results/2026-11-24-h100-ntt-qinv-69a0db7.md)
template <bool F64>
__device__ __forceinline__ void ctx_f64(Ctx &c, const hepa_dev_limb &lc, const uint64_t *tables,
                                       size_t n, bool inv) {
    if (F64 && lc.q < HEPA_DEV_F64_BELOW) {
        c.f64 = true;
        c.twd = reinterpret_cast<const double *>(tables + lc.tw64) + (inv ? n : 0);
        c.twr =
            reinterpret_cast<const double *>(tables + lc.tw64) + 2 * n + (inv ? 256 + (n >> 5) : 0);
        c.qd = lc.qd;
        c.qi = lc.qi;
    }
}
// GENERATED ROW TWIDDLES. The row pass of an FP64 limb computes its row's 255 twiddles instead
// of copying them (stage_row_twiddles_f64): those copies are n doubles per limb and transform,
// as many bytes as half the data a pass reads. Staging entry e (2^lg <= e < 2^(lg+1), the stage
// on bit B = 7 - lg, j = e - 2^lg) of row r is table entry idx = 2^(log n - 8 + lg) + r·2^lg + j,
// i.e. ψ^rev(idx), and rev(idx) = 2^B + rev_lg(j)·2^(log n - lg) + rev_(log n - 8)(r)·2^(B + 1)
// (disjoint bits): the row-0 twiddle S[e] times ρ_r^(2^B) with ρ_r = ψ^(2·rev_(log n - 8)(r)) (ψ^-1
// and the same split for the inverse table). The ring keeps S (256 doubles) and R[8r + lg] =
// ρ_r^(2^(7 - lg)) per direction after the limb's doubles (hepa_dev_limb.tw64, device.cu), 1/32
// of the table, and each lane makes 8 entries with one exact f64_mulmod: integers congruent to
// the table's values, |w| < 0.91q. Same layout as stage_row_twiddles_f64's (after stage,
// below).
// Words in [0, q) into the FP64 path's doubles (exact: below 2^53), and back to [0, q).
__device__ __forceinline__ void f64_in(uint64_t (&v)[8]) {
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = bits(u2d(v[k]));
}
__device__ __forceinline__ void f64_out(uint64_t (&v)[8], const Ctx &c) {
#pragma unroll
    for (int k = 0; k < 8; ++k) v[k] = f64_canonical(dbl(v[k]), c);
}

// GENERATED ROW TWIDDLES (above): row `row`'s 255 doubles for tile `tile`; the whole warp calls
// it; returns where they are.
__device__ __forceinline__ const double *
gen_row_twiddles_f64(const Ctx &c, uint64_t *base, unsigned tile, size_t row, unsigned lane) {
    double *tws = reinterpret_cast<double *>(base) + (size_t)tile * 512;
    const double *R = c.twr + 256 + 8 * row;
#pragma unroll
    for (unsigned t = 0; t < 8; ++t) {
        const unsigned e = lane + 32 * t;
        if (e == 0) continue;
        const unsigned lg = t == 0 ? 31 - __clz(e) : t == 1 ? 5 : t < 4 ? 6 : 7;
        // S, R in [0, q): f64_mulmod's bounds hold (Y = 1); the result, |w| < 0.91q, is used as
        // it is (FP64 LIMBS: a twiddle may be any integer with |w| < q)
        tws[e] = f64_mulmod(__ldg(c.twr + e), __ldg(R + lg), c);
    }
    __syncwarp();
    return tws;
}

// Butterflies of one stage on slot bit I with the twiddles load_twiddles fetched; FP: the FP64
// path (FP64 LIMBS), chosen once per pass by the caller. (Until 2026-11-23 it was a run-time
// test of c.f64 in every stage: the branches made ptxas copy the eight values between register
// pairs at every merge, about 30 moves a stage.)
// RED (FP64 inverse only): reduce the sums (else they grow; see FP64 LIMBS for when it may skip).
template <int I, bool INV, bool SCALE, bool FP, bool RED = true>
__device__ __forceinline__ void stage(uint64_t (&v)[8], const Ctx &c, const ulonglong2 (&tw)[4]) {
    if constexpr (FP) {
        int p = 0;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            if ((k >> I) & 1) continue;
            const int k1 = k | (1 << I);
            const double x = dbl(v[k]), y = dbl(v[k1]);
            if (INV && SCALE) {
                v[k] = bits(f64_mulmod(__dadd_rn(x, y), u2d(c.n_inv), c));
                v[k1] = bits(f64_mulmod(__dsub_rn(x, y), u2d(c.n_inv_w), c));
            } else if (!INV) {
                const double t = f64_mulmod(y, dbl(tw[p].x), c);
                v[k] = bits(__dadd_rn(x, t));
                v[k1] = bits(__dsub_rn(x, t));
            } else {
                v[k] = bits(RED ? f64_reduce(__dadd_rn(x, y), c) : __dadd_rn(x, y));
                v[k1] = bits(f64_mulmod(__dsub_rn(x, y), dbl(tw[p].x), c));
            }
            ++p;
        }
        return;
    }
    int p = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        if ((k >> I) & 1) continue;
        const int k1 = k | (1 << I);
        if (INV && SCALE) {
            // last inverse stage: (x + y)·n^(-1), (x - y)·n^(-1)·w, both in [0, 2q)
            const uint64_t x = v[k], y = v[k1];
            v[k] = hepa_mul_shoup_lazy(x + y, c.n_inv, c.n_inv_shoup, c.q);
            v[k1] = hepa_mul_shoup_lazy(x - y + 2 * c.q, c.n_inv_w, c.n_inv_w_shoup, c.q);
        } else if (!INV) {
            hepa_butterfly_ct_lazy(&v[k], &v[k1], tw[p].x, tw[p].y, c.q);
        } else {
            hepa_butterfly_gs_lazy(&v[k], &v[k1], tw[p].x, tw[p].y, c.q);
        }
        ++p;
    }
}

// Issue the loads of step STEP's twiddles (nothing for restore steps and the scaled stage).
template <int GB, int CB, int S, bool INV, bool LAST, bool STG, bool FP, int STEP>
__device__ __forceinline__ void prefetch_step(ulonglong2 (&tw)[4], const Ctx &c, unsigned lane,
                                              unsigned warp, unsigned gx0, unsigned logn) {
    constexpr Schedule sch = Sched<GB, CB, INV>::value;
    if constexpr (STEP < sch.stages) {
        constexpr Step st = sch.steps[STEP];
        if constexpr (!(INV && LAST && st.bit == GB - 1)) {
            const unsigned gxt = gx0 + (thread_base<GB, CB, STEP, INV>(lane, warp) << S);
            load_twiddles<st.slot, st.map.ps[0], st.map.ps[1], st.map.ps[2], st.bit, S,
                          STG, FP>(tw, c, gxt, logn);
        }
    }
}

// SHARED-WINDOW EXCHANGES (HEPA_NTT_XCHG32; row tiles: GB = 8, CB = 0, 2 KiB areas). The
// generic form below computes each access's address as (pp ^ c) << 3 + window base: a LOP3 and
// a LEA per access (SASS at 1ccbbfa; the inverse row pass ran 74 LEA per thread, the forward's
// 36). Here the accesses XOR 32-bit shared-window addresses instead, one LOP3 each: for an area
// at a window address s0 that is a multiple of 1 KiB (the dynamic area is declared 1 KiB aligned,
// and the row areas are 2 KiB apart), and offsets pp, c < 2 KiB, s0 + (pp ^ c) = a ^ (c & 0x3ff)
// with a = s0 + pp where c's bit 10 is clear and a = s0 + (pp ^ 0x400) where it is set (the
// low ten bits of either a are pp's, and bits 10 and up are not touched by the XOR). The
// alignment holds module-wide: ptxas then pads the static shared memory of a kernel that has some
// (ntt2_kernel's 4-byte s_item) to 1 KiB; kernels without any start their dynamic area at window
// offset 0x400 as before. H100 A/Bs and the tests: bench/results/
// 2026-12-07-h100-head-1ccbbfa-helper-prio.md, section 5 (both builds had the declaration).
#ifndef HEPA_NTT_XCHG32
#define HEPA_NTT_XCHG32 1 // 0: the generic addresses everywhere (for A/Bs)
#endif
// The tile's values from one mapping to another through shared memory: written under slot
// e-bits P0..P2 with thread base pb, read under N0..N2 with base nb. WARP_TILE: the tile is one
// warp (__syncwarp instead of a block barrier). GB: the tile's bits (0: not known to the caller).
template <int CB, bool WARP_TILE, int P0, int P1, int P2, int N0, int N1, int N2, int GB = 0>
__device__ __forceinline__ void exchange(uint64_t (&v)[8], uint64_t *smem, unsigned pb, unsigned nb,
                                         unsigned lane) {
    constexpr int C = 1 << CB;
    if (WARP_TILE)
        __syncwarp();
    else
        __syncthreads(); // earlier reads of smem are done
    if constexpr (HEPA_NTT_XCHG32 && GB == 8 && CB == 0) {
        const unsigned s0 = (unsigned)__cvta_generic_to_shared(smem);
        const unsigned wp = phys_rt<0>(pb) * 8, w0 = s0 + wp, w1 = s0 + (wp ^ 0x400u);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const unsigned c = phys(SlotOff<P0, P1, P2>::of(k), 0) * 8; // < 2 KiB
            const unsigned a = ((c & 0x400u) ? w1 : w0) ^ (c & 0x3ffu);
            *reinterpret_cast<uint64_t *>(__cvta_shared_to_generic(a)) = v[k];
        }
        if (WARP_TILE)
            __syncwarp();
        else
            __syncthreads();
        const unsigned rp = phys_rt<0>(nb) * 8, r0 = s0 + rp, r1 = s0 + (rp ^ 0x400u);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const unsigned c = phys(SlotOff<N0, N1, N2>::of(k), 0) * 8; // < 2 KiB
            const unsigned a = ((c & 0x400u) ? r1 : r0) ^ (c & 0x3ffu);
            v[k] = *reinterpret_cast<const uint64_t *>(__cvta_shared_to_generic(a));
        }
        return;
    }
    // Word (phys(b ^ o))·C + c = ((phys(b)·C + c) ^ phys(o)·C) for slot offset o: as byte
    // offsets, one XOR with a constant per access (the product form cost three integer
    // instructions per access: ModUp's column kernel spent about 8 per element on them).
    char *const sb = reinterpret_cast<char *>(smem);
    const unsigned pp = (phys_rt<CB>(pb) * C + (lane & (C - 1))) * 8;
#pragma unroll
    for (int k = 0; k < 8; ++k)
        *reinterpret_cast<uint64_t *>(sb + (pp ^ phys(SlotOff<P0, P1, P2>::of(k), CB) * C * 8)) =
            v[k];
    if (WARP_TILE)
        __syncwarp();
    else
        __syncthreads();
    const unsigned np = (phys_rt<CB>(nb) * C + (lane & (C - 1))) * 8;
#pragma unroll
    for (int k = 0; k < 8; ++k)
        v[k] = *reinterpret_cast<const uint64_t *>(
            sb + (np ^ phys(SlotOff<N0, N1, N2>::of(k), CB) * C * 8));
}

// The steps from STEP on; RESTORE = false stops after the last stage (the mapping it leaves is
// the schedule's steps[stages - 1].map; ntt_mulrows_kernel). RED0: the FP64 inverse reduces its
// sums at the stages on tile bits b > 0 with b mod 3 = RED0 (2 unless the pass is one of an
// FP64 intermediate's, see FP64 LIMBS).
template <int GB, int CB, int S, bool INV, bool LAST, bool STG, bool FP, int STEP,
          bool RESTORE = true, int RED0 = 2, bool XW = true>
__device__ __forceinline__ void run_steps(uint64_t (&v)[8], Ctx &c, uint64_t *smem, unsigned lane,
                                          unsigned warp, unsigned gx0, unsigned logn,
                                          ulonglong2 (&tw)[4]) {
    constexpr Schedule sch = Sched<GB, CB, INV>::value;
    if constexpr (STEP < (RESTORE ? sch.count : sch.stages)) {
        constexpr Step st = sch.steps[STEP];
        if constexpr (st.action == SWAP) {
            swap_slot_lane<st.slot, CB + st.lane_j>(v, lane);
        } else if constexpr (st.action == EXCHANGE) {
            // write with the previous mapping (the load mapping before the first step), read
            // with this step's
            constexpr Map pm = STEP == 0 ? LoadMap<GB, CB, INV>::value
                                         : sch.steps[STEP == 0 ? 0 : STEP - 1].map;
            unsigned pb;
            if constexpr (STEP == 0)
                pb = load_base<GB, CB, INV>(lane, warp);
            else
                pb = thread_base<GB, CB, STEP - 1, INV>(lane, warp);
            exchange<CB, GB - 3 - (5 - CB) == 0, pm.ps[0], pm.ps[1], pm.ps[2], st.map.ps[0],
                     st.map.ps[1], st.map.ps[2], XW ? GB : 0>(
                v, smem, pb, thread_base<GB, CB, STEP, INV>(lane, warp), lane);
        }
        // The next step's twiddles are requested before this step computes. (Measured on an
        // H100 against loading them right before use: no difference beyond noise, n = 2^12 to
        // 2^17, L = 34; the compiler already schedules these loads early.)
        ulonglong2 tw_next[4];
        prefetch_step<GB, CB, S, INV, LAST, STG, FP, STEP + 1>(tw_next, c, lane, warp, gx0, logn);
        if constexpr (STEP < sch.stages) {
            // The scaled last inverse stage is the top bit of the last pass (a last pass always
            // holds the top bit: it is the column pass or the single tile). Compile-time, so the
            // other stages carry no trace of it.
            if constexpr (INV && LAST && st.bit == GB - 1)
                stage<st.slot, INV, true, FP>(v, c, tw);
            else
                stage<st.slot, INV, false, FP, st.bit % 3 == RED0 && st.bit != 0>(v, c, tw);
        }
        run_steps<GB, CB, S, INV, LAST, STG, FP, STEP + 1, RESTORE, RED0, XW>(
            v, c, smem, lane, warp, gx0, logn, tw_next);
    }
}

// MODUP CONVERSION (XF 4, modup1_cols_kernel): conv_core.h's exact Conv_{q_s -> q} of one
// source limb, specialised (ns = 1: the hat factors are 1, so v = x and the target sum is
// x mod q): u = round(x / q_s), computed with the same double operations as
// hepa_conv_frac_add / _round (x < q_s, so f <= 1 and u is 0 or 1), then x mod q (one Barrett
// step: x < q_s < 2^62) minus u·(q_s mod q). u depends on the source only; the rest on the
// target. The GPU key-switch tests check it bit-exact against the host's generic conversion.
// xd: x as a double, rounded when q_s >= 2^53 as (double)x rounds it. (The host's
// f = 0 + x·(1/q_s) is x·(1/q_s) for x >= 0, and f + 0.5 < 2 truncates to 1 exactly when it is
// >= 1.)
__device__ __forceinline__ bool modup_u_of(double xd, double inv_s) {
    return __dadd_rn(__dmul_rn(xd, inv_s), 0.5) >= 1.0;
}
// The integer route: [0, q) (cs = q_s mod q).
__device__ __forceinline__ uint64_t modup_word(uint64_t x, bool u, uint64_t cs,
                                               const hepa_dev_limb &lc) {
    if (x >= lc.q) {
        x -= hepa_mulhi64(x, lc.ratio_hi) * lc.q; // [0, 2q)
        if (x >= lc.q) x -= lc.q;
    }
    return u ? hepa_mod_sub(x, cs, lc.q) : x;
}
// The FP64 route, for an FP64 limb and q_s < 2^52 (xd = x exactly): x - u·(q_s mod q) reduced,
// |.| <= q/2 + 1, a value of the FP64 path (already a double: no f64_in).
__device__ __forceinline__ uint64_t modup_f64(double xd, bool u, uint64_t cs, const Ctx &c) {
    return bits(f64_reduce(__dsub_rn(xd, u ? u2d(cs) : 0.0), c));
}

// CKKS encode's rare case, |m| >= 2^63 (the bits of a double in `bits`): out of line, so that its
// frexp / power of two does not cost the fused load registers.
__device__ __noinline__ uint64_t residue_big(uint64_t bits, const hepa_modulus *mod) {
    return ckks_residue(__longlong_as_double((long long)bits), mod);
}

// The tile kernel. GB = tile bits, CB = log2(columns per tile), S = global bit of tile e-bit 0
// (the index of tile element e in column c is tile·tile_stride + c + (e << S)), TILES = tiles per
// block (only for tiles that need no shared memory), INV = inverse, FUSED = inverse pass that
// first multiplies two NTT-domain inputs pointwise. LAST: the final pass of the transform
// (reduces to [0, q); for the inverse it also scales by n^(-1)). XF: a load or store fusion of
// a forward transform, the others' work done where the data passes anyway:
//   1 (NTT-domain rescale, _hepa_dev_ntt_rescale; aux = the level's block of
//     hepa_ring_device::rescale): the first pass loads centred(in) mod q_limb from the one limb
//     `in` (the same for every limb);
//   2 (the same rescale): the last pass stores (in2 - x)·q_last^(-1) instead of x;
//   3 (CKKS encode, _hepa_dev_ntt_encode): the first pass loads m mod q_limb from the n
//     coefficients `in` (int64, or CKKS_BIG: then the double aux[k]), the same for every limb,
//     so the rounded plaintext is never written limb by limb;
//   4 (key switching's ModUp with one-limb digits, _hepa_dev_ntt_modup1, map mode; and ModDown
//     with one special prime, _hepa_dev_ntt_moddown, without a map): the first pass loads the
//     exact conversion of one coefficient-domain limb to this limb's modulus; aux[3·y ..] =
//     (source limb, q_src mod q, 1/q_src as double bits), y = map entry, or the limb without a
//     map. (XF 2 also serves ModDown: aux then holds P^(-1) mod q_i, a pair swaps in2 for
//     in2_b, and acc / acc_b, where not NULL, are added as it stores: hepa_keyswitch_add.)
//   6 (key switching's ModUp with digits of 2 or more limbs, _hepa_dev_ntt_modup_cols, the column
//     pass): FP64 limbs below KS_PACK_BELOW are loaded and stored in PACKED COLUMNS.
//   8 (both passes of the plain two-pass transforms, either direction, F64 kernels only): FP64
//     INTERMEDIATE.
//   9 (hepa_mul_relin's ModDown, a pair): XF 2 whose adds are the tensor product's, d0 = a0·b0
//     to out (acc = a0, mb = b0) and d1 = a0·b1 + a1·b0 to out_b (acc_b = a1, mb_b = b1),
//     computed as it stores (MODDOWN TENSOR below).
// F64: the kernel runs FP64 butterflies for its limbs with q < 2^47 (FP64 LIMBS), launched for
// rings that have such a limb.
// The sizes whose key switching hands FP64 limbs below 2^40 between passes in 5 bytes (PACKED
// COLUMNS, PACKED Q LIMBS): ks_packed on the host, the XF 9 / 10 loads in the kernel.
__host__ __device__ constexpr bool ks_packed_logn(unsigned logn) {
    return logn >= 15 && logn <= 17;
}
// tile_body is one block's work: block (bx, by), thread tid (ntt_tile_kernel passes its own
// indices; ntt2_kernel the ones its work item names).
#ifndef HEPA_XF1_NORED
#define HEPA_XF1_NORED 1 // XF 1's FP64 route skips the reduction where |x_c| < q already
#endif
#ifndef HEPA_XF2_F64
#define HEPA_XF2_F64 1 // FP64 SUBTRACT-AND-SCALE (0: the integer form for every limb)
#endif
#ifndef HEPA_NTT_PRO
#define HEPA_NTT_PRO 1 // PDL PROLOGUE (0: the tile kernels wait for the grid before first)
#endif
#ifndef HEPA_NTT_PRO_WAVE
#define HEPA_NTT_PRO_WAVE 1 // the prologue in the first wave's blocks only (0: in every block)
#endif
#ifndef HEPA_XF2_PREFETCH
#define HEPA_XF2_PREFETCH 1
#endif
template <int GB, int CB, int S, int TILES, bool INV, bool FUSED, bool LAST, bool STG, int XF,
          bool F64, bool PW = false, int MINB = 0>
__device__ __forceinline__ void
tile_body(const unsigned bx, const unsigned by, const unsigned tid, uint64_t *out,
          const uint64_t *in, const uint64_t *in2, const uint64_t *__restrict__ tables,
          const hepa_dev_limb *__restrict__ limbs, unsigned logn, unsigned tile_stride,
          unsigned seg_bits, unsigned seg_stride, uint64_t *out_b, const uint64_t *in_b,
          unsigned level, const uint32_t *__restrict__ map, const uint64_t *__restrict__ aux,
          const uint64_t *in2_b, const uint64_t *acc, const uint64_t *acc_b, const uint64_t *mb,
          const uint64_t *mb_b) {
    extern __shared__ __align__(1024) uint64_t smem_dyn[]; // (SHARED-WINDOW EXCHANGES)
    constexpr int TPT = 1 << (GB + CB - 3); // threads per tile
    constexpr int C = 1 << CB;
    constexpr Schedule sch = Sched<GB, CB, INV>::value;
    constexpr Map fm = sch.steps[sch.count - 1].map; // final mapping = load mapping's lanes
    static_assert(exchanges_conflict_free(GB, CB, INV), "an exchange has bank conflicts");
    static_assert(!STG || (GB == 8 && CB == 0 && S == 0), "staged twiddles are for row tiles");
    static_assert(XF == 0 || XF == 8 || (!INV && !FUSED), "load / store fusions: forward only");
    static_assert(XF != 8 || (F64 && !FUSED), "FP64 INTERMEDIATE: F64 kernels, plain passes");
    static_assert(XF != 1 || !LAST, "the rescale's correction is loaded by the first of two passes");
    static_assert((XF != 2 && XF != 9 && XF != 10 && XF != 11) || LAST,
                  "the rescale's scaling is stored by the last pass");
    // the subtract-and-scale store (XF 2; 9 and 10 are ModDown's with in2 in PACKED Q LIMBS; 11
    // is 9 with MODDOWN RESCALE)
    constexpr bool XSS = XF == 2 || XF == 9 || XF == 10 || XF == 11;
    constexpr bool X9 = XF == 9 || XF == 11; // MODDOWN TENSOR (X9 below stands for XF 9 or 11)
    static_assert(XF != 6 || !LAST, "packed columns are handed to the fused row pass");
    const size_t n = (size_t)1 << logn;
    // grid.y = level, or 2·level for a pair of polynomials (out_b = NTT(in_b) in the same launch:
    // twice the blocks, so less of the last-wave tail). A pair's limb i is y = 2i (in, out) and
    // y = 2i + 1 (in_b, out_b): blocks start in y order, so the second reads limb i's twiddles
    // from L2 after the first (a row pass reads n - 256 twiddle pairs per limb, as many bytes as
    // the limb itself; with y = i + level they came from DRAM twice).
    // With a map (key switching: limbs of several polynomials, each with its own modulus),
    // entry by gives the data limb (high bits) and the modulus index (low 8 bits); an
    // inverse pair with a map (the pair rescale's last limbs) reads entry by - level for
    // in_b (forward kernels leave it out: it changed their register allocation).
    // PW (ntt_tile_kernel): this body runs the PDL wait itself, after the PDL PROLOGUE below
    // for the last pass's row tiles without a map (a map's entries are read first), at the top
    // for the others
    constexpr bool PRO = PW && STG && LAST && HEPA_NTT_PRO;
    // (EARLY RESCALE HALF: XF 1 with in2 set skips the wait here, block (0, 0) runs it at the end)
    if constexpr (PW)
        if (!PRO || map) {
            if (XF != 1 || !in2) pdl_wait();
            pdl_trigger();
        }
    int limb = by;
    size_t dlimb;
    bool pb = false; // the second polynomial of a pair (XF 9: out_b = d1's output)
    if (map) {
        if (INV && !FUSED && limb >= (int)level) { // only with out_b: else grid.y = level
            limb -= (int)level;
            out = out_b;
            in = in_b;
        }
        const uint32_t m = map[limb];
        limb = (int)(m & 0xff);
        dlimb = m >> 8;
    } else {
        if (out_b) {
            // (XF 9: both polynomials in one block, see MODDOWN TENSOR's PAIR BLOCKS)
            const bool second = X9 ? tid / TPT >= TILES / 2 : limb & 1;
            if (!X9) limb >>= 1;
            if (second) {
                out = out_b;
                in = in_b;
                if (in2_b) in2 = in2_b;
                if (!X9) acc = acc_b;
                pb = true;
            }
        }
        dlimb = (size_t)limb;
    }
    const unsigned ltid = tid % TPT;
    // MODDOWN TENSOR's PAIR BLOCKS: with XF 9 a block takes TILES / 2 rows of limb `by` of both
    // polynomials (its first TILES / 2 tiles out's, the others out_b's), so that the rows of a0
    // and b0 that both outputs read come from DRAM once. As neighbouring blocks of the pair
    // (y = 2i, 2i + 1, as XF 2 runs), out_b's blocks read about 80% of them from DRAM again:
    // ncu at 2^16/33, P = 3 (H100), that pass read 176 MB (149 MB of inputs) in 79.0 µs; pair
    // blocks 159 MB in 75.9 µs.
    static_assert(!X9 || TILES % 2 == 0, "pair blocks: the block's tiles split in two");
    const unsigned tile = X9 ? bx * (TILES / 2) + tid / TPT % (TILES / 2) : bx * TILES + tid / TPT;
    const unsigned lane = ltid & 31, warp = ltid >> 5;
    // tiles come in segments of 2^seg_bits, tile_stride apart within a segment and seg_stride
    // between segments (the middle pass of a three-pass transform; one segment otherwise)
    const unsigned gx0 = (tile >> seg_bits) * seg_stride +
                         (tile & ((1u << seg_bits) - 1)) * tile_stride + (lane & (C - 1));
    uint64_t *smem = smem_dyn + (size_t)(tid / TPT) * (TPT * 8);
    const hepa_dev_limb lc = limbs[limb];
    const size_t off = dlimb * n;
    // ModDown's t0 / t1 (in2, in2_b) in PACKED Q LIMBS with XF 9 and 10, as ks_rows_inner_kernel
    // stored them with pack_q: FP64 limbs below 2^40 where ks_packed holds (F64 kernels: the
    // ring has FP64 limbs; a limb below 2^40 is one)
    const bool ipk = (X9 || XF == 10) && F64 && lc.q < HEPA_KSK_PACK_BELOW && ks_packed_logn(logn);

    // XF2 PREFETCH. XF 2 reads in2 (and acc) only as it stores, after the stages: without a
    // prefetch those loads start a DRAM round trip when the block is done with everything else.
    // Thread 0 of a row block asks for the block's whole range (TILES rows of 256 words,
    // contiguous, 16-byte aligned) into L2 now, so it lands while the stages run (a hint: no
    // ordering, no results). H100, same call, 2^16/33 (hepa-bench --ks, µs): NTT-domain rescale
    // of a ciphertext 78.4-79.1 -> 76.8-77.7; ModDown 94 -> 89.5 (P = 1), 126 -> 123 (P = 3).
#if __CUDA_ARCH__ >= 900 // (the bulk prefetch is sm_90's)
    if constexpr (XSS && HEPA_XF2_PREFETCH && GB == 8 && CB == 0 && S == 0) {
        if (tid == 0) {
            constexpr unsigned R = X9 ? TILES / 2 : TILES; // rows per polynomial
            const size_t o = off + (size_t)bx * (R * 256);
            auto pfb = [&](const void *p, unsigned bytes) {
                asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes)
                             : "memory");
            };
            auto pf = [&](const uint64_t *p) { pfb(p + o, R * 256 * 8); };
            // a PACKED Q LIMB's rows: their low halves, then their high bytes
            auto pf5 = [&](const uint64_t *p) {
                const uint8_t *limb = reinterpret_cast<const uint8_t *>(p + off);
                pfb(limb + (size_t)bx * (R * 256 * 4), R * 256 * 4);
                pfb(limb + 4 * n + (size_t)bx * (R * 256), R * 256);
            };
            auto pft = [&](const uint64_t *p) { // t0 / t1, packed or not
                if (ipk)
                    pf5(p);
                else
                    pf(p);
            };
            if (X9) { // (thread 0 works on out's rows: in2 is t0 here)
                pft(in2), pft(in2_b);
                pf(acc), pf(acc_b), pf(mb), pf(mb_b);
            } else {
                pft(in2);
                if (acc) pf(acc);
            }
        }
    }
#endif
    Ctx c = ctx_of(lc, tables, n, limb, INV);
    ctx_f64<F64>(c, lc, tables, n, INV); // FP64 LIMBS
    // PDL PROLOGUE (the last pass's row tiles, FP64 limbs): the row's twiddles are generated
    // (GENERATED ROW TWIDDLES, from the ring's tables, which no kernel writes) before the PDL
    // wait, so that the blocks made resident while the first pass is finishing have them ready
    // when its data are visible (before, the generation ran after the data loads in every block).
    // The XF2 PREFETCH above may also run before the wait: it is a hint, and every write lands
    // in L2, so it cannot bring in a stale line. H100, same call, two rounds each, 40-bit, µs
    // (bench/results/2026-11-27-h100-ntt-pdl-prologue.md):
    // forward 2^16/34 26.6-26.7 -> 25.4-25.5 hot, 30.8-30.9 -> 29.7 cold; NTT-domain rescale of
    // a ciphertext at 2^16/33 71.0-71.8 -> 66.1-66.9; inverse, 60-bit rings and hepa_mul_relin
    // unchanged. Not the inverse's first pass (also row tiles): it follows whatever came before
    // the call (an event, in hepa-bench), and there the prologue only delayed the data loads:
    // inverse 2^16/34 cold 31.6-31.7 -> 33.1-33.3. The integer rows' twiddle copies issued
    // before the wait gained nothing (60-bit forward 43.9 -> 44.2 hot), so they stay after the
    // data loads.
    // FIRST WAVE ONLY (WAVE): only the first wave's blocks can be resident before the grid
    // ahead ends. A later block starts once a block of this grid has finished, so its wait
    // returns at once, and twiddles made first would only delay its data loads (as in the
    // inverse's first pass, above); those blocks generate after the loads, as before. The first
    // wave: the first nsmid·BPS blocks in launch order (x fastest), BPS the blocks an SM holds
    // at the launch bounds' 1024 threads, or MINB where given (%nsmid, at least the
    // SM count, may overcount a little: a few later blocks then take the prologue too; either
    // order gives the same words). H100,
    // same call, two rounds, 40-bit, µs (bench/results/2026-11-27-h100-ntt-prologue-wave.md):
    // forward 2^20/16 (16 waves) 331.2-333.0 -> 325.0-325.3 hot, 330.4-332.5 -> 324.1-327.2
    // cold; 2^16/34 (2 waves) 25.2-25.4 -> 25.2 hot, 29.7-29.9 -> 29.6-29.7 cold. Not for the
    // subtract-and-scale stores (XSS: the rescale, ModDown): there it measured 0.3 µs slower on
    // average (NTT-domain rescale of a ciphertext at 2^16/33, eight runs each), so those
    // kernels take the prologue in every block (their code is unchanged by this).
    constexpr bool WAVE = PRO && HEPA_NTT_PRO_WAVE && !XSS;
    bool pro = true;
    if constexpr (WAVE) {
        constexpr unsigned BPS = MINB ? MINB : 1024 / (TILES * TPT);
        const unsigned nsm = nsmid();
        pro = by * gridDim.x + bx < nsm * BPS;
    }
    if constexpr (PRO) {
        if (pro && F64 && c.f64)
            c.twsd = gen_row_twiddles_f64(c, smem_dyn + (size_t)TILES * TPT * 8, tid / TPT,
                                          gx0 >> 8, lane);
        if (!map) pdl_wait(), pdl_trigger();
    }

    // load with the load mapping (see load_map)
    constexpr Map lm = LoadMap<GB, CB, INV>::value;
    const unsigned b0 = load_base<GB, CB, INV>(lane, warp);
    uint64_t v[8];
    // ADDRESSES: the thread's base (b0) and the slot offsets have disjoint bits, so | is +, and
    // the base computed once in 64 bits lets each access take its slot offset as an immediate
    // (with (b0 | off_k) << S in 32 bits the compiler built each of the eight 64-bit addresses
    // from scratch: about 4 instructions per load and per store). Measured on an H100 against
    // the 32-bit form (hepa-bench --gpu-suite, L = 34, µs, hot / cold; with the FP64 path's
    // store reduction removed, see the stores): 60-bit forward 2^13 11.4 / 12.7 -> 10.6 / 12.1,
    // 2^15 27.6 / 28.9 -> 24.9 / 25.9; 40-bit forward 2^16 29.1 / 33.5 -> 28.1 / 32.9; inverse
    // 2^17/64 60-bit 181 -> 177. Except the integer forward of n = 2^17 (its column tiles,
    // GB = 9, and ntt2_kernel's 16-row items), where it measured slower: 165 -> 168 µs at
    // 2^17/64 60-bit; there the 32-bit form stays.
    constexpr bool ADDR64 = F64 || INV || (GB != 9 && TILES != 16);
    const size_t lbase = off + gx0 + ((size_t)b0 << S);
    // CKKS encode: all eight loads first (the out-of-line call for a big coefficient would
    // otherwise keep the compiler from hoisting the later loads above it)
    int64_t enc[XF == 3 ? 8 : 1];
    if constexpr (XF == 3) {
#pragma unroll
        for (int k = 0; k < 8; ++k)
            enc[k] = (int64_t)in[gx0 + ((b0 | SlotOff<lm.ps[0], lm.ps[1], lm.ps[2]>::of(k)) << S)];
    }
    // XF 4: this limb's conversion constants (see below); xf64: its FP64 route applies (an FP64
    // limb, and a source modulus below 2^52, i.e. 1/q_s > 2^-52)
    const uint64_t *ax = XF == 4 ? aux + 3 * (size_t)(map ? by : (unsigned)limb) : nullptr;
    const bool xf64 = XF == 4 && F64 && c.f64 && dbl(ax[2]) > 0x1p-52;
    // XF 6: this limb is in PACKED COLUMNS (in place: in == out)
    const bool xpk = XF == 6 && F64 && c.f64 && lc.q < HEPA_KSK_PACK_BELOW;
    // XF 1: FP64 route of the correction, for an FP64 limb when q_last = 2·aux[0] + 1 < 2^47
    const bool xr64 = XF == 1 && F64 && c.f64 && aux[0] < HEPA_DEV_F64_BELOW / 2;
    // element index of slot k from a thread base tb (the 32-bit OR form where ADDRESSES does
    // not apply)
    auto slot_addr = [&](unsigned tb, size_t base, unsigned so) -> size_t {
        if constexpr (ADDR64)
            return base + ((size_t)so << S);
        else
            return off + gx0 + ((tb | so) << S);
    };
    // XF 1's FP64 route: the centred x (x - q_last when x > q_last / 2; exact, |.| <= q_last / 2
    // < 2^46), reduced to |.| <= q/2 + 1 unless already |.| < q (aux[0] < q: q_last < 2q, every
    // limb of a chain of equal-sized primes), either a start the FP64 stages' bounds allow (FP64
    // LIMBS); the same residue as hepa_center_mod's, which the stores make canonical. One loop per
    // case, so the reduction's four FP64 operations are not issued predicated off. H100, same
    // call, hepa-bench --ks, NTT-domain rescale of a ciphertext, µs: 2^16/33 71.6-72.0 ->
    // 70.5-71.9, 2^17/61 244.6-245.2 -> 242.0-242.9.
    auto xr_loads = [&](auto red) {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const size_t gx = slot_addr(b0, lbase, SlotOff<lm.ps[0], lm.ps[1], lm.ps[2]>::of(k));
            const uint64_t x = in[gx - off];
            const double xd = u2d(x);
            const double xc = x > aux[0] ? __dsub_rn(xd, u2d(2 * aux[0] + 1)) : xd;
            v[k] = bits(decltype(red)::value ? f64_reduce(xc, c) : xc);
        }
    };
    if constexpr (XF == 1) {
        if (xr64) {
            if (HEPA_XF1_NORED && aux[0] < lc.q)
                xr_loads(std::false_type{});
            else
                xr_loads(std::true_type{});
        }
    }
    // VECTOR LOADS (VLD): where the load mapping puts the slots on e-bits 0..2 of a tile of
    // adjacent words (inverse row and single tiles, HEPA_NTT_INV_LOAD_LOW), a thread's eight
    // words are 64 contiguous bytes, and eight 8-byte loads make each warp instruction touch 32
    // sectors for 8 bytes apiece. Instead, where in + lbase is 16-byte aligned (else the loop
    // below), four 16-byte loads; or, in the staged row tiles of the F64 kernels (VCP: the first
    // pass of the inverse at n >= 2^16 on rings with FP64 limbs), the warp copies its row with
    // coalesced 16-byte cp.async (L2 to shared memory, past L1) into the tile's exchange buffer,
    // chunk c at c ^ (c >> 2 & 7) so that the 16-byte reads of any 8 lanes hit 8 different bank
    // groups, and each thread reads its words from there just before the stages.
    // HEPA_NTT_VLOAD: 2 both (as said), 1 the 16-byte loads only, 0 neither. H100, same calls,
    // 40-bit inverse, hot / cold µs, 0 -> 2 (bench/results/2026-11-28-h100-ntt-vector-loads.md):
    // 2^16/34 29.6-29.7 / 31.3-31.4 -> 27.5-27.6 / 29.6-29.7, 2^16/64 54.2-54.6 / 57.4-57.6 ->
    // 50.5 / 55.1-55.2, 2^17/15 30.5-30.6 / 32.2-32.3 -> 28.5-28.8 / 30.0-30.1, 2^17/64 114.6-114.7
    // / 113.9-114.0 -> 113.4-113.6 / 112.6-112.7, 2^15/34 17.6-17.9 / 19.7-19.8 -> 16.7-16.9 /
    // 19.1-19.2, 2^12/34 9.7 / 10.1 -> 8.9-9.0 / 9.3-9.5; 60-bit 2^16/34 48.7 / 49.4-49.5 ->
    // 49.0-49.1 / 49.5. The choice per kernel is measured: the copies in every one-warp row tile
    // (also ntt2_kernel's, the integer rows and 2^15's unstaged ones) were slower there (60-bit
    // 2^16/34 hot 49.0 -> 50.5, 2^17/64 40-bit 114.7 -> 115.8, 2^15/34 16.8 -> 17.7), and a VCP
    // kernel that kept the 16-byte loads for its integer limbs lost the cold gain at 2^16/34
    // (31.3 instead of 29.6-29.7; the same copies for its FP64 limbs, different code around them).
    // In the kernels without FP64 limbs (HEPA_NTT_VLOAD_INT), 60-bit: 2^17/64 167.6-167.9 ->
    // 166.4-166.7, 2^12/34 12.5-12.7 -> 12.2-12.4, 2^16/34 and 2^15/34 0.2-0.3 slower.
    constexpr bool VLD = HEPA_NTT_VLOAD && CB == 0 && S == 0 && lm.ps[0] == 0 && lm.ps[1] == 1 &&
                         lm.ps[2] == 2 && !FUSED && (XF == 0 || XF == 8) &&
                         (F64 || HEPA_NTT_VLOAD_INT);
    constexpr bool VCP = VLD && HEPA_NTT_VLOAD >= 2 && TPT == 32 && PW && STG && F64;
    // VCP: where 16-byte chunk c of the row sits in the exchange buffer (in words)
    auto vcp_word = [](unsigned c) { return 2 * (c ^ (c >> 2 & 7u)); };
    bool vld = false;
    if constexpr (VLD) {
        vld = (reinterpret_cast<uintptr_t>(in + lbase) & 15u) == 0;
        if (vld) {
            if constexpr (VCP) {
                const uint64_t *row = in + off + gx0; // the tile's row (lanes: e-bits 3..7)
#pragma unroll
                for (unsigned j = 0; j < 4; ++j) {
                    const unsigned ch = lane + 32 * j;
                    cp_async16(smem + vcp_word(ch), row + 2 * ch);
                }
                cp_async_commit();
            } else {
                const ulonglong2 *p = reinterpret_cast<const ulonglong2 *>(in + lbase);
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const ulonglong2 t = p[j];
                    v[2 * j] = t.x;
                    v[2 * j + 1] = t.y;
                }
            }
        }
    }
    // the thread's words from the exchange buffer (VCP)
    auto vcp_read = [&]() {
        if constexpr (VCP) {
            if (vld) {
                cp_async_wait_all();
                __syncwarp();
#pragma unroll
                for (unsigned j = 0; j < 4; ++j) {
                    const ulonglong2 t =
                        *reinterpret_cast<const ulonglong2 *>(smem + vcp_word(4 * lane + j));
                    v[2 * j] = t.x;
                    v[2 * j + 1] = t.y;
                }
            }
        }
    };
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        if (VLD && vld) break; // (VECTOR LOADS did them)
        const size_t gx = slot_addr(b0, lbase, SlotOff<lm.ps[0], lm.ps[1], lm.ps[2]>::of(k));
        if (XF == 1) { // the rescale's correction; aux[0] = q_last / 2, aux[1 + 3·limb] = q_last mod q
            if (xr64) continue; // (above)
            const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
            v[k] = hepa_center_mod(in[gx - off], aux[0], aux[1 + 3 * limb], &mod); // [0, q)
        } else if (XF == 3) { // CKKS encode (ckks_core.h), [0, q)
            const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
            v[k] = enc[k] != CKKS_BIG ? ckks_residue_i64(enc[k], &mod)
                                      : residue_big(aux[gx - off], &mod);
        } else if (XF == 4) {
            // MODUP CONVERSION; x in [0, q_s)
            const uint64_t x = in[ax[0] * n + (gx - off)];
            const double inv_s = dbl(ax[2]);
            if (xf64) {
                // (xf64: x < q_s < 2^52 is exact as a double, so u2d gives (double)x without
                // the slow 64-bit cvt; about 40 integer instructions per element fewer than
                // the generic route, in a kernel that is instruction-issue bound)
                const double xd = u2d(x);
                v[k] = modup_f64(xd, modup_u_of(xd, inv_s), ax[1], c);
                continue;
            }
            v[k] = modup_word(x, modup_u_of((double)x, inv_s), ax[1], lc); // [0, q)
        } else if (FUSED) {
            const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
            v[k] = hepa_mod_mul(in[gx], in2[gx], &mod); // [0, q)
        } else if ((XF == 6 && xpk) || ((X9 || XF == 10) && ipk)) {
            // the word of PACKED COLUMNS by hand (ksk_layout.h; a call gave other address
            // arithmetic, different PTX, not measured); XF 9 / 10: ModDown's pair between its
            // passes, packed where t0 / t1 are
            const uint32_t *lo = reinterpret_cast<const uint32_t *>(in + off);
            v[k] = lo[gx - off] |
                   (uint64_t) reinterpret_cast<const uint8_t *>(lo)[4 * n + hepa_pcol_hi(gx - off)]
                       << 32;
        } else {
            v[k] = in[gx];
        }
    }
    // the stages, FP64 or integer (FP: see stage), chosen once for the pass
    auto stages = [&](auto fp) {
        constexpr bool FP = decltype(fp)::value;
        if constexpr (STG) {
            // the row's 255 twiddles (see Staged), after the data loads: ptxas placed the wait
            // between the data loads when the copies came first, so half of them waited for it
            uint64_t *base = smem_dyn + (size_t)TILES * TPT * 8;
            // (FP64 rows generate them, GENERATED ROW TWIDDLES. For XF 2, the last pass of the
            // rescale and of ModDown, which runs mostly on pairs whose two blocks of a row share
            // copied twiddles through L2, generating and copying measured the same: 87.5-88.3
            // µs per NTT-domain rescale of a ciphertext at 2^16/33, H100)
            if constexpr (PRO && FP) {
                if constexpr (WAVE) // (else made above, PDL PROLOGUE)
                    if (!pro) c.twsd = gen_row_twiddles_f64(c, base, tid / TPT, gx0 >> 8, lane);
            } else if constexpr (FP)
                c.twsd = gen_row_twiddles_f64(c, base, tid / TPT, gx0 >> 8, lane);
            else
                c.tws = stage_row_twiddles(c.tw, base, tid / TPT, gx0 >> 8, n, lane);
        }
        vcp_read();
        ulonglong2 tw[4];
        prefetch_step<GB, CB, S, INV, LAST, STG, FP, 0>(tw, c, lane, warp, gx0, logn);
        if constexpr (FP) {
            // (the FP64 routes of XF 4 and XF 1 loaded doubles, as did XF 8's last pass)
            if (!xf64 && !xr64 && !(XF == 8 && LAST)) f64_in(v);
        }
        // FP64 INTERMEDIATE of the inverse: its sums reduced at bits 3, 6 (first pass) and 1, 4,
        // 7 (last pass), see FP64 LIMBS
        constexpr int RED0 = INV && XF == 8 ? (LAST ? 1 : 0) : 2;
        // (the rescale's last pass, XF 2, and the inverse row tiles without staged twiddles
        // (n < 2^16) keep the generic exchange addresses: with the SHARED-WINDOW EXCHANGES their
        // FP64 builds spilled 16 and 8 bytes; on an H100 the NTT-domain rescale at 2^16/33 went
        // 64.2-64.9 -> 65.4-66.0 µs and the 40-bit inverse at 2^15/34 17.1, 17.2 -> 16.7, 16.7
        // hot (same call). So do the fused inverse and ModDown's last pass below 2^16, XF 9 / 10
        // / 11 without STG, whose builds spilled 20 and 8 more bytes with them. Measured with
        // MODDOWN RESCALE in the same build (H100, same call, two rounds against 16a3ce2):
        // hepa_mul_relin at 2^16/33 2.5-6 µs slower at P = 1, 2, 3 and level at P = 4. Not from
        // this condition: the SHARED-WINDOW addresses everywhere but XF 2 and XF 11 without STG
        // measured the same there (P = 3 536.4, 536.0 against 536.1, 536.0 µs; 2^16/34 inverse
        // 27.0, 27.0 against 26.9, 27.0 hot) and no better at 2^15/34 (inverse 16.9, 17.0
        // against 16.8, 16.5 hot; bench/results/2026-12-07-h100-ns5-wide-ab.md).)
        constexpr bool XW = XF != 2 && !FUSED && (STG || (!INV && !X9 && XF != 10));
        run_steps<GB, CB, S, INV, LAST, STG, FP, 0, true, RED0, XW>(v, c, smem, lane, warp, gx0,
                                                                    logn, tw);
        // [0, q) for the store. The FP64 path's f64_out makes every pass's words canonical. The
        // integer path's last pass reduces its lazy range (see Lazy ranges): here in kernels
        // built with the FP64 path, in the store loop below in the others. (The reduction used
        // to sit in the store loop for both paths, where the FP64 path ran it for nothing: 12
        // integer instructions per element, a tenth of the FP64 row pass's; moving it here in
        // the integer-only kernels measured slower, 2^17/64 60-bit forward 165 -> 169 µs.)
        if constexpr (FP && XF == 8 && !LAST) {
            // FP64 INTERMEDIATE: the values as they are (forward |.| < 6.43q, inverse < 1.82q +
            // 2; see FP64 LIMBS)
        } else if constexpr (FP && XSS && HEPA_XF2_F64) {
            // FP64 SUBTRACT-AND-SCALE: the store loop's (a - x)·s (+ acc) in doubles, on the
            // stages' values (|x| < 9q: eight stages from [0, q), see FP64 LIMBS): y = a - x,
            // |y| < 10q, within f64_mulmod's Y <= 13; |y·s mod q| < 0.91q, + acc < 1.91q; then
            // canonical. Replaces f64_out and the integer subtract, Shoup product and add: ncu,
            // the rescale's row pass at 2^16, 32 limbs, 8.54 -> 7.34 M warp instructions,
            // 23.0 -> 19.5 µs. hepa-bench --ks 2^16/33, same call, 2 runs each, µs: NTT-domain
            // rescale of a ciphertext 76.8-77.9 -> 70.8-72.1; ModDown 90.0 -> 85.0 (P = 1),
            // 123.1 -> 119.0 (P = 3), 111.9 -> 107.6 (P = 2), 131.8 -> 127.4 (P = 4).
            // (the store loop's fb and sbase, below. Made here again, not once above the
            // stages: that moved the register allocation of 59 of the file's kernels, some of
            // them the plain passes, and gave several new spills)
            const unsigned fb = thread_base<GB, CB, sch.count - 1, INV>(lane, warp);
            const size_t sbase = off + gx0 + ((size_t)fb << S);
            const double sd = u2d(aux[2 + 3 * limb]);
            [[maybe_unused]] const double rsd =
                XF == 11 ? u2d(aux[1 + 3 * limb]) : 0.0; // MODDOWN RESCALE
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                const size_t gx =
                    slot_addr(fb, sbase, SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k));
                const uint64_t a = ipk ? hepa_pack5_get(in2 + off, n, gx - off) : in2[gx];
                double t = f64_mulmod(__dsub_rn(u2d(a), dbl(v[k])), sd, c);
                if constexpr (X9) {
                    // MODDOWN TENSOR: each product |.| < 0.91q (words in [0, q)), so
                    // |t| < 2.73q, well within f64_canonical's range
                    const double a0 = u2d(acc[gx]), b0 = u2d(mb[gx]);
                    if (!pb)
                        t = __dadd_rn(t, f64_mulmod(a0, b0, c));
                    else
                        t = __dadd_rn(__dadd_rn(t, f64_mulmod(a0, u2d(mb_b[gx]), c)),
                                      f64_mulmod(u2d(acc_b[gx]), b0, c));
                    // MODDOWN RESCALE: the sum times q_(l-1)^(-1) (|t| < 2.73q is within
                    // f64_mulmod's Y <= 13; the product |.| < 0.91q)
                    if constexpr (XF == 11) t = f64_mulmod(t, rsd, c);
                } else if (acc) {
                    t = __dadd_rn(t, u2d(acc[gx]));
                }
                v[k] = f64_canonical(t, c);
            }
        } else if constexpr (FP && INV && LAST && GB <= 8) {
            // the scaled last stage's products, |.| < 0.91q: the sign fix-up alone (f64_out's
            // reduction would be 4 of the pass's ~45 FP64 instructions per element). Not in the
            // column tiles of 9 bits (n = 2^17): there it measured slower, negacyclic multiply
            // 2^17/64 40-bit 279.2-280.3 -> 283.9-284.4 µs (same call, two runs; the standalone
            // inverse, whose column items run in ntt2_kernel, 114.1-114.8 either way).
#pragma unroll
            for (int k = 0; k < 8; ++k)
                v[k] = f64_canonical_small_q(dbl(v[k]), c.qd);
        } else if constexpr (FP) {
            f64_out(v, c);
        } else if constexpr (LAST && F64) {
#pragma unroll
            for (int k = 0; k < 8; ++k)
                v[k] = INV ? hepa_reduce_2q(v[k], c.q) : hepa_reduce_4q(v[k], c.q);
        }
    };
    if (F64 && c.f64)
        stages(std::bool_constant<F64>{});
    else
        stages(std::false_type{});

    const unsigned fb = thread_base<GB, CB, sch.count - 1, INV>(lane, warp);
    const size_t sbase = off + gx0 + ((size_t)fb << S); // (see ADDRESSES above)
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        const size_t gx = slot_addr(fb, sbase, SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k));
        uint64_t x = v[k];
        if (LAST && !F64) x = INV ? hepa_reduce_2q(x, c.q) : hepa_reduce_4q(x, c.q); // (above)
        // the rescale: (a - correction)·q_last^(-1), a = in2; then + acc (FP64 limbs: above)
        if (XSS && !(F64 && HEPA_XF2_F64 && c.f64)) {
            x = hepa_mul_shoup(hepa_mod_sub(in2[gx], x, c.q), aux[2 + 3 * limb], aux[3 + 3 * limb],
                               c.q);
            if (X9) { // MODDOWN TENSOR, integer limbs
                const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
                const uint64_t a0 = acc[gx], b0 = mb[gx];
                const uint64_t d = pb ? hepa_mod_add(hepa_mod_mul(a0, mb_b[gx], &mod),
                                                     hepa_mod_mul(acc_b[gx], b0, &mod), c.q)
                                      : hepa_mod_mul(a0, b0, &mod);
                x = hepa_mod_add(x, d, c.q);
                if (XF == 11) x = hepa_mod_mul(x, aux[1 + 3 * limb], &mod); // MODDOWN RESCALE
            } else if (acc) {
                x = hepa_mod_add(x, acc[gx], c.q);
            }
        }
        if (XF == 6 && xpk) { // PACKED COLUMNS (x in [0, q): the FP64 stages end in f64_out)
            // hepa_pcol_put(out + off, n, gx - off, x) by hand (see the load above)
            uint32_t *lo = reinterpret_cast<uint32_t *>(out + off);
            lo[gx - off] = (uint32_t)x;
            reinterpret_cast<uint8_t *>(lo)[4 * n + hepa_pcol_hi(gx - off)] = (uint8_t)(x >> 32);
            continue;
        }
        out[gx] = x;
    }
    // EARLY RESCALE HALF (_hepa_dev_ntt_rescale): the grid cannot complete before the one before
    // it, so the next grid's wait covers both
    if constexpr (PW && XF == 1)
        if (in2 && bx == 0 && by == 0) pdl_wait();
}

// The tile kernel: one block runs tile_body for its (blockIdx.x, blockIdx.y).
// At least 1024 resident threads per SM (a cap of 64 registers per thread): without it the
// compiler gave the 512-thread column kernel of n = 2^17 72 registers, one block per SM, and
// the forward NTT at n = 2^17, L = 64 went from 203 to 225 µs on an H100. MINB > 0: built for
// MINB blocks per SM instead (NINE ROW BLOCKS PER SM, below).
template <int GB, int CB, int S, int TILES, bool INV, bool FUSED, bool LAST, bool STG, int XF,
          bool F64, int MINB = 0>
__global__ void __launch_bounds__(TILES *(1 << (GB + CB - 3)),
                                  MINB ? MINB : 1024 / (TILES * (1 << (GB + CB - 3))))
    ntt_tile_kernel(uint64_t *out, const uint64_t *in, const uint64_t *in2,
                    const uint64_t *__restrict__ tables, const hepa_dev_limb *__restrict__ limbs,
                    unsigned logn, unsigned tile_stride, unsigned seg_bits, unsigned seg_stride,
                    uint64_t *out_b, const uint64_t *in_b, unsigned level,
                    const uint32_t *__restrict__ map, const uint64_t *__restrict__ aux,
                    const uint64_t *in2_b, const uint64_t *acc, const uint64_t *acc_b,
                    const uint64_t *mb, const uint64_t *mb_b) {
    // (the PDL wait and trigger: in tile_body, PW)
    tile_body<GB, CB, S, TILES, INV, FUSED, LAST, STG, XF, F64, true, MINB>(
        blockIdx.x, blockIdx.y, threadIdx.x, out, in, in2, tables, limbs, logn, tile_stride,
        seg_bits, seg_stride, out_b, in_b, level, map, aux, in2_b, acc, acc_b, mb, mb_b);
}
// NINE ROW BLOCKS PER SM (ntt_tile_kernel, MINB = 9): the last pass of a plain FP64 forward
// transform (XF 8, rows of 4 tiles, 128 threads) built for 9 resident blocks per SM, not 8: a
// cap of 56 registers instead of 64 (ptxas: 56, no spills; the 8-block build takes 64). launch_tile
// takes it where the row grid is more than one wave at 8 blocks per SM; smaller grids fill
// fewer slots than the SMs hold, and there the tighter cap only lengthens each block. H100, same
// call, three rounds, 40-bit, hepa-bench --gpu-suite, µs (bench/results/
// 2026-11-27-h100-ntt-rows9.md):
//   2^16/34 25.3 -> 24.6-24.8 hot, 29.7-29.9 -> 29.2 cold; 2^16/64 45.4-46.1 -> 44.9-45.2 hot,
//   53.3-53.6 -> 52.4-52.6 cold; 2^17/15 (two launches) 25.1-25.2 -> 24.4-24.6 hot; one wave or
//   less (2^16/8, 2^17/8, taking it always): 0.2-0.3 slower, so the rule.
// The other kernels keep the 1024-thread bound. Nine blocks for every forward last-pass row
// kernel measured no faster for the 60-bit forward (2^16/34 44.0 hot either way) and slower
// for the NTT-domain rescale (66.1-66.7 -> 67.1-68.2 µs at 2^16/33; its FP64 build spills 8
// bytes at 56 registers, ModDown's 16-20); the inverse's first pass at 9 blocks and the column
// pass at 5 blocks of 256 (spills) were no faster either (bench/results/
// 2026-11-27-h200-ntt-f64-occupancy-small-limbs.md).
#ifndef HEPA_NTT_ROWS9
#define HEPA_NTT_ROWS9 1 // 0: the 8-block build everywhere (for A/Bs)
#endif

// TWO PASSES IN ONE LAUNCH (ntt2_kernel; n = 2^16 and 2^17, the plain transforms: one
// polynomial, a pair, or mapped limbs; see launch_ntt2 for where). The two passes of a transform
// as two launches leave the GPU draining at the end of the first (its last blocks run on a
// part-empty GPU) and filling at the start of the second (every block waits for its first
// loads), about 6 µs of the forward's 33 at 2^16/34 (the intercept of its time against L). Here
// every block takes a work item from a counter (ctr[0]): one column tile or 2^(GB1 - 5) rows (the
// same 2^GB1 threads) of one limb y. A second-pass item of limb y waits (spinning on ctr[2 + y],
// the count of y's finished first-pass items; their writes are fenced before the count) until all
// T1 = 32 first-pass items of y are done. Items are handed out in an order that puts limb y's
// second pass D limbs after its first (D: about one wave of blocks), so waits are rare, and a wait
// is always for items handed out earlier, whose blocks are running: no deadlock. The last block to
// finish (ctr[1]) zeroes the counters for the next launch (stream order, and PDL's wait for the
// whole grid, keep launches on one stream apart; the helper stream's copy of a ring does not use
// this). Invariant: the counters are zero when a launch starts. Only a launch that never
// completes (a sticky error, after which the context is unusable) leaves them set; two launches
// of one ring running at once (e.g. a captured graph replayed beside the ring's stream) would
// break it.
// Measured on an H100 (hepa-bench --gpu-suite, cold, two launches -> one, µs; D = one wave):
// 2^16/34 60-bit forward 49.5 -> 48.2, inverse 55.5 -> 53.1; 40-bit (FP64) forward 33.4 ->
// 35.0 (slower: not used there), inverse 37.6 -> 37.3; 2^17/64 40-bit forward 117.8 -> 119.3
// (not used), inverse 137.7 -> 132.7. D = 1.5 waves: about the same at 2^16, 8-12% slower at
// 2^17; D = half a wave: 1-4 µs slower at 2^16.
// Re-measured at 9022e79 for the FP64 forward (same call, hot / cold µs): 2^17/64 40-bit
// 114.5-115.1 / 114.7-115.4 -> 108.8-109.0 / 108.9-109.0, so it is used there since; 2^16/34
// 27.2-27.4 / 31.4-31.5 -> 29.4-29.5 / 33.1-33.3, so not there. The FP64 inverse at 2^16 went
// the same way once the inverse passes got faster (fca6054, 69a0db7): at 2c1f5e3, same call,
// 2^16/34 40-bit, one launch -> two, hot / cold µs: 32.9 / 34.0-34.1 -> 30.7-30.8 / 32.6-32.7
// (the one-launch loss was about 2 µs at every L from 32 to 40), so no FP64 ring uses it at 2^16
// since; with signal_done's cheaper count it is still 1-1.6 µs slower there.
// signal_done / wait_count: device/grid_sync.cuh (with the A/B that chose them).
template <int GB1, bool INV, bool F64>
__global__ void __launch_bounds__(1 << GB1, 1024 >> GB1)
    ntt2_kernel(uint64_t *out, const uint64_t *in, const uint64_t *__restrict__ tables,
                const hepa_dev_limb *__restrict__ limbs, unsigned logn, uint64_t *out_b,
                const uint64_t *in_b, unsigned level, const uint32_t *__restrict__ map, unsigned Y,
                unsigned D, unsigned *ctr) {
    pdl_wait(); // PDL
    pdl_trigger();
    constexpr int TR = (1 << GB1) / 32;  // rows per row item
    constexpr unsigned T1 = 32, T2 = 32; // items per limb: 256 / 8 column tiles, (n >> 8) / TR
    // FP64 INTERMEDIATE between the forward's passes. H100, same call, two runs, 40-bit,
    // hot / cold µs: 2^17/64 forward 106.7-106.9 / 106.8-107.0 -> 106.1 / 106.0-106.1, 2^17/32
    // 55.8 / 58.4-58.6 -> 55.0-55.1 / 58.1-58.3; the inverse measured 0.3-0.4 µs slower with it,
    // so not there. (Again with the inverse's unreduced intermediate, 2026-11-24, same call, two
    // runs: 2^17/64 40-bit inverse hot 114.8-114.9 -> 116.3-116.5 µs, cold 114.2-114.4 ->
    // 115.6-115.9.)
    constexpr int XF = F64 && !INV && HEPA_NTT_F64_MID ? 8 : 0;
    __shared__ unsigned s_item;
    if (threadIdx.x == 0) s_item = atomicAdd(&ctr[0], 1u);
    __syncthreads();
    const unsigned t = s_item;
    unsigned second, y, bx;
    if (t < D * T1) { // the first D limbs' first passes
        second = 0;
        y = t / T1;
        bx = t % T1;
    } else {
        const unsigned u = t - D * T1, mid = (Y - D) * (T1 + T2);
        if (u < mid) { // limb D + s's first pass, then limb s's second
            const unsigned s = u / (T1 + T2), r = u % (T1 + T2);
            second = r >= T1;
            y = second ? s : D + s;
            bx = second ? r - T1 : r;
        } else { // the last D limbs' second passes
            second = 1;
            y = Y - D + (u - mid) / T2;
            bx = (u - mid) % T2;
        }
    }
    if (second) {
        if (threadIdx.x == 0) wait_count(ctr + 2 + y, T1);
        __syncthreads();
    }
    const uint64_t *src = second ? out : in, *src_b = second ? out_b : in_b;
    if (INV != (bool)second) // rows: the forward's second pass, the inverse's first
        tile_body<8, 0, 0, TR, INV, false, !INV, true, XF, F64>(
            bx, y, threadIdx.x, out, src, nullptr, tables, limbs, logn, 256, 31, 0, out_b, src_b,
            level, map, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    else
        tile_body<GB1, 3, 8, 1, INV, false, INV, false, XF, F64>(
            bx, y, threadIdx.x, out, src, nullptr, tables, limbs, logn, 8, 31, 0, out_b, src_b,
            level, map, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr);
    if (!second) signal_done(ctr + 2 + y);
    if (threadIdx.x == 0 && atomicAdd(&ctr[1], 1u) == Y * (T1 + T2) - 1) {
        ctr[0] = ctr[1] = 0; // the last block: every other one has finished
        for (unsigned i = 0; i < Y; ++i)
            ctr[2 + i] = 0;
    }
}

// FUSED PRODUCT ROWS (ntt_mulrows_kernel; _hepa_dev_ntt_mul, n = 2^13 .. 2^17). The middle of a
// negacyclic product out = INTT(NTT(a) ⊙ NTT(b)): after the forward column pass of both factors
// (fa, fb), one warp per 256-element row runs the forward row stages of both rows, their
// pointwise product and the inverse row stages, and stores the row for the inverse column pass.
// The unfused path (forward pair, then the inverse with the product fused into its load) wrote
// both forward transforms and read them back: 13 passes' worth of words against 9 here (at
// n = 2^16, L = 34, 71 MB less). The two rows share the row's twiddles; the forward's restore
// exchange becomes one exchange from its last mapping straight to the inverse's load mapping.
// One row at a time: a's transformed row waits in shared memory (PARK) while b's row is loaded
// and transformed, so the kernel holds one row in registers like the row pass (both rows at once
// took 122-128 registers, or spilled 400-750 bytes under the 64-register cap).
// Ranges: integer limbs: fa, fb in [0, 4q) (the forward's lazy range between passes), as are
// the rows after the forward stages; both factors are reduced to [0, q) for hepa_mod_mul, so
// the inverse starts from [0, q) as the FUSED pass did. FP64 limbs (FP64 LIMBS): fa, fb in
// [0, q); the forward stages leave |x| < 9q; the product is f64_mulmod(x_a, f64_reduce(x_b)),
// |.| < 0.91q (Y = 9), and the inverse's bounds hold from there as from [0, q).
// Shared memory: 4 exchange areas of 256 words, then per row W words (mulrows_words): FP64
// rows (W = 512) generate the forward twiddles at [0, 256) and park a at [256, 512), where the
// inverse twiddles are generated after the product; integer rows (W = 768) stage the forward's
// pairs at [0, 512), park at [512, 768) and stage the inverse's pairs at [0, 512) once the
// forward stages are done. W = 256 (park only) without STG.
// The value, unknown to the compiler from here on (nothing derived from it earlier is reused).
__device__ __forceinline__ void launder(unsigned &x) {
    asm volatile("" : "+r"(x));
}
template <typename T> __device__ __forceinline__ void launder(const T *&p) {
    uintptr_t x = reinterpret_cast<uintptr_t>(p);
    asm volatile("" : "+l"(x));
    p = reinterpret_cast<const T *>(x);
}
// At least HEPA_MULROWS_MINB blocks of 128 threads per SM: 5 lets ptxas use 96 registers and it
// spills nothing (8, the row pass's cap of 64, spilled 90-130 bytes). Negacyclic multiply,
// H100, cold, µs, unfused / 8 / 6 / 5 / 4 blocks: 2^16/34 40-bit 114.2 / 92.5 / 89.5 / 88.8 /
// 92.2, 60-bit 151.5 / 149.4 / 141.9 / 135.7 / 136.0; 2^17/64 40-bit 400.4 / 313.3 / 303.2 /
// 300.9 / 312.0; 2^13/34 60-bit 31.2 / - / 37.7 / 26.5 / 27.3.
#ifndef HEPA_MULROWS_MINB
#define HEPA_MULROWS_MINB 5
#endif
#ifndef HEPA_MULROWS_PRO
#define HEPA_MULROWS_PRO 1 // MULROWS PROLOGUE (0: off, for A/Bs)
#endif
__host__ __device__ constexpr unsigned mulrows_words(bool stg, bool any_int) {
    return !stg ? 256 : any_int ? 768 : 512;
}
template <bool STG, bool F64>
__global__ void __launch_bounds__(128, HEPA_MULROWS_MINB)
    ntt_mulrows_kernel(uint64_t *out, const uint64_t *fa, const uint64_t *fb,
                       const uint64_t *__restrict__ tables, const hepa_dev_limb *__restrict__ limbs,
                       unsigned logn, unsigned W) {
    // (the PDL wait and trigger: below, after the MULROWS PROLOGUE)
    extern __shared__ __align__(1024) uint64_t smem_dyn[]; // (SHARED-WINDOW EXCHANGES)
    constexpr Schedule sf = Sched<8, 0, false>::value, si = Sched<8, 0, true>::value;
    constexpr Map lf = LoadMap<8, 0, false>::value, li = LoadMap<8, 0, true>::value;
    constexpr Map mf = sf.steps[sf.stages - 1].map; // after the forward's last stage
    constexpr Map fi = si.steps[si.count - 1].map;  // the inverse's store mapping
    const size_t n = (size_t)1 << logn;
    const int limb = blockIdx.y;
    const unsigned lane = threadIdx.x & 31, t = threadIdx.x >> 5; // t: the block's row
    const unsigned row = blockIdx.x * 4 + t, gx0 = row * 256;
    uint64_t *smem = smem_dyn + (size_t)t * 256;         // the row's exchange area
    uint64_t *area = smem_dyn + 4 * 256 + (size_t)t * W; // twiddles and PARK
    const size_t off = (size_t)limb * n + gx0;
    Ctx cf = ctx_of(limbs[limb], tables, n, limb, false);
    ctx_f64<F64>(cf, limbs[limb], tables, n, false);
    // MULROWS PROLOGUE: as the PDL PROLOGUE and FIRST WAVE ONLY of tile_body, the forward
    // row twiddles of an FP64 limb are generated before the wait in the first wave's blocks
    // (HEPA_MULROWS_MINB of them per SM, the launch bounds' minimum), after the data loads in
    // the others. The kernel follows the forward column pass (PDL), so those blocks are
    // resident before its end. H100, same call, three rounds, negacyclic multiply 40-bit, µs
    // (bench/results/2026-11-27-h100-ntt-prologue-wave.md): 2^16/34 82.0-82.2 -> 81.1-81.5
    // hot, 82.0-82.4 -> 81.1-81.5 cold; 2^17/64 about 0.5 faster cold, unchanged hot; 2^16/8
    // 29.7-30.0 -> 28.9-29.0 cold. Registers unchanged (96, no spills).
    bool pro = false;
    if constexpr (STG && F64 && HEPA_MULROWS_PRO) {
        const unsigned nsm = nsmid();
        pro = cf.f64 && blockIdx.y * gridDim.x + blockIdx.x < nsm * HEPA_MULROWS_MINB;
        if (pro) cf.twsd = gen_row_twiddles_f64(cf, area, 0, row, lane);
    }
    pdl_wait(); // PDL
    pdl_trigger();
    const unsigned b0 = load_base<8, 0, false>(lane, 0);
    uint64_t v[8];
#pragma unroll
    for (int k = 0; k < 8; ++k)
        v[k] = fa[off + b0 + SlotOff<lf.ps[0], lf.ps[1], lf.ps[2]>::of(k)]; // (ADDRESSES)
    auto body = [&](auto fp) {
        constexpr bool FP = decltype(fp)::value;
        uint64_t *park = area + (STG ? (FP ? 256 : 512) : 0);
        if constexpr (STG) {
            if constexpr (FP) {
                if (!pro) cf.twsd = gen_row_twiddles_f64(cf, area, 0, row, lane);
            } else
                cf.tws = stage_row_twiddles(cf.tw, area, 0, row, n, lane);
        }
        ulonglong2 tw[4];
        if constexpr (FP) f64_in(v);
        prefetch_step<8, 0, 0, false, false, STG, FP, 0>(tw, cf, lane, 0, gx0, logn);
        run_steps<8, 0, 0, false, false, STG, FP, 0, false>(v, cf, smem, lane, 0, gx0, logn, tw);
        // PARK: lane-private words (k·32 + lane), read back by the same lane
#pragma unroll
        for (int k = 0; k < 8; ++k)
            park[k * 32 + lane] = v[k];
        __syncwarp(); // (keeps b's loads below a's transform: registers)
        // b's twiddle reads are a's again: hide that, or the compiler keeps a's in registers
        // across (spills of 140-730 bytes)
        launder(cf.tw);
        launder(cf.tws);
        launder(cf.twd);
        launder(cf.twsd);
        unsigned lane2 = lane, gx2 = gx0; // (the same for the lane-derived indices)
        launder(lane2);
        launder(gx2);
#pragma unroll
        for (int k = 0; k < 8; ++k)
            v[k] = fb[off + b0 + SlotOff<lf.ps[0], lf.ps[1], lf.ps[2]>::of(k)];
        if constexpr (FP) f64_in(v);
        prefetch_step<8, 0, 0, false, false, STG, FP, 0>(tw, cf, lane2, 0, gx2, logn);
        run_steps<8, 0, 0, false, false, STG, FP, 0, false>(v, cf, smem, lane2, 0, gx2, logn, tw);
        // the inverse's context only now (registers)
        const hepa_dev_limb lc = limbs[limb];
        Ctx ci = ctx_of(lc, tables, n, limb, true);
        ctx_f64<F64>(ci, lc, tables, n, true);
        if constexpr (STG && !FP) {
            __syncwarp(); // every lane has read its last forward twiddles
            ci.tws = stage_row_twiddles(ci.tw, area, 0, row, n, lane, false);
        }
        if constexpr (FP) {
#pragma unroll
            for (int k = 0; k < 8; ++k)
                v[k] = bits(f64_mulmod(dbl(park[k * 32 + lane]), f64_reduce(dbl(v[k]), cf), cf));
        } else {
            const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
#pragma unroll
            for (int k = 0; k < 8; ++k)
                v[k] = hepa_mod_mul(hepa_reduce_4q(park[k * 32 + lane], lc.q),
                                    hepa_reduce_4q(v[k], lc.q), &mod);
        }
        if constexpr (STG && FP) {
            __syncwarp(); // every lane has read its parked words
            ci.twsd = gen_row_twiddles_f64(ci, park, 0, row, lane);
        }
        exchange<0, true, mf.ps[0], mf.ps[1], mf.ps[2], li.ps[0], li.ps[1], li.ps[2], 8>(
            v, smem, thread_base<8, 0, sf.stages - 1, false>(lane, 0),
            load_base<8, 0, true>(lane, 0), lane);
        if constexpr (STG && !FP) {
            cp_async_wait_all();
            __syncwarp(); // the other lanes' copies are visible
        }
        prefetch_step<8, 0, 0, true, false, STG, FP, 0>(tw, ci, lane, 0, gx0, logn);
        run_steps<8, 0, 0, true, false, STG, FP, 0>(v, ci, smem, lane, 0, gx0, logn, tw);
        if constexpr (FP) f64_out(v, ci);
    };
    if (F64 && cf.f64)
        body(std::bool_constant<F64>{});
    else
        body(std::false_type{});
    const unsigned sb = thread_base<8, 0, si.count - 1, true>(lane, 0);
#pragma unroll
    for (int k = 0; k < 8; ++k)
        out[off + sb + SlotOff<fi.ps[0], fi.ps[1], fi.ps[2]>::of(k)] = v[k];
}

// PACKED COLUMNS. Key switching's fused ModUp (_hepa_dev_ntt_modup_cols, then
// _hepa_dev_ks_rows_inner) hands the column pass's output of every target to the row pass
// through memory: dnum·(E - alpha) limbs, 571 MB at N = 2^16 with 33 Q primes and P = 1, written
// once and read once beside the key. Where the row pass runs FP64 rows (rings with FP64 limbs,
// n = 2^15 to 2^17: see ks_packed and _hepa_dev_ks_rows_inner) and the target is an FP64 limb
// below KS_PACK_BELOW, its words (in [0, q), below 2^40) are kept in 5 bytes instead of 8: the
// low 32 bits at uint32_t index x of the limb's slice, the high 8 at byte 4n + x of it.
//  - one-limb digits: modup1_cols_kernel (pack) converts, transforms and stores them so;
//  - digits of 2 to HEPA_DEV_FUSED_CONV_MAX (4) limbs: modupn_cols_kernel converts, transforms
//    and stores them so;
//  - digits of more limbs: the conversion kernel (hepa_conv_job::pack) stores them so, and
//    the column pass (ntt_tile_kernel XF 6) loads and stores them so, in place (an element's
//    bytes are the same in and out, and a tile loads all of its elements before it stores).
// All decide with ks_packed and the limb's q.
constexpr uint64_t KS_PACK_BELOW = HEPA_KSK_PACK_BELOW; // 2^40, as the keys (ksk_layout.h)
bool ks_packed(const hepa_ring *ring) {
    return ring->dev->f64 && ks_packed_logn(ring->log_n);
}

// MODUP COLUMNS (modup1_cols_kernel): the column pass (n in [2^13, 2^17], forward, not the
// last) of the NTTs of XF 4's conversions for runs of targets that share one source limb, one
// block per column tile and group of targets of a run:
//  - key switching's ModUp with one-limb digits (map mode: a digit's E - 1 targets are `run`
//    consecutive map entries, aux[3y ..] as in XF 4);
//  - ModDown with one special prime (no map: target y is limb y of the `run` = level limbs, all
//    from the one P limb; a pair, the second polynomial's blocks on in_b / out_b).
// The block loads the source words and computes their u (MODUP CONVERSION) once, then, target
// by target, converts, runs the stages and stores. ntt_tile_kernel with XF 4 did one target per
// block and repeated the loads, u and its set-up (ncu, H100, ModUp of 2^16/33/P=1, 1089 targets:
// 471 µs, 114 instructions per element, issue slots 64% busy).
// grid: x = column tile (8 adjacent columns), y = (run r, group g) as r·groups + g (pairs: the
// second polynomial's after the first's); group g of a run takes its targets [g·G, (g+1)·G).
// Launched for rings with FP64 limbs (the F64 build of the stages): the integer-only build
// spilled 64-108 bytes under the 64-register cap, so 60-bit rings keep ntt_tile_kernel's XF 4.
// pack: store the FP64 targets below KS_PACK_BELOW in PACKED COLUMNS (the fused ModUp's column
// pass at n = 2^15 to 2^17). With the groups and the exchanges' XOR addressing (d1e4b47): 417
// µs and 209 M warp instructions for the launch above; packing then cut 571 -> 357 MB.
// The forward column pass's stages for one target of modup1_cols_kernel / modupn_cols_kernel
// (tiles of 8 columns, tile e-bit 0 at global bit 8, not the last pass); FP: the FP64 path,
// ending in words in [0, q).
template <int GB, bool FP>
__device__ __forceinline__ void cols_stages(uint64_t (&v)[8], Ctx &c, uint64_t *smem, unsigned lane,
                                            unsigned warp, unsigned gx0, unsigned logn) {
    ulonglong2 tw[4];
    prefetch_step<GB, 3, 8, false, false, false, FP, 0>(tw, c, lane, warp, gx0, logn);
    run_steps<GB, 3, 8, false, false, false, FP, 0>(v, c, smem, lane, warp, gx0, logn, tw);
    if constexpr (FP) f64_out(v, c);
}
// Their store of the target's words into limb o: the final mapping's slots (fb: the thread's
// bits under it), in PACKED COLUMNS when packed. Word k's index is gx0 + ((fb | off_k) << 8) with
// gx0 < 256 (a column of the 256-word rows) and off_k the slot's bits, disjoint from fb's: so it
// is the thread's base xb plus a constant, and since hepa_pcol_hi permutes bits, its high byte's
// index is hepa_pcol_hi(xb) plus a constant too. Both addresses are then computed once and every
// store takes an immediate offset. (Computed per word in 64 bits, the packed stores were about 13
// instructions per word: 6.6% of modupn_cols_kernel<8, 3>'s at 2^16/33, P = 3, ncu source
// counters on an H100.) IMM false keeps the per-word addresses, for modup1_cols_kernel: there the
// bases made the kernel slower, though it ran 9% fewer instructions (H100, ncu at 2^16/33, P = 1:
// 421 -> 435 µs, hepa_mul_relin +10 µs, +84 µs at 2^17/61; with IMM, modupn_cols_kernel<8, 3> went
// 269 -> 259 µs on its own).
template <int GB, bool IMM>
__device__ __forceinline__ void cols_store(uint64_t *o, size_t n, unsigned gx0, unsigned fb,
                                           const uint64_t (&v)[8], bool packed) {
    constexpr Schedule sch = Sched<GB, 3, false>::value;
    constexpr Map fm = sch.steps[sch.count - 1].map;
    if constexpr (!IMM) {
        if (packed) {
#pragma unroll
            for (int k = 0; k < 8; ++k)
                hepa_pcol_put(o, n,
                              gx0 + ((fb | SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k)) << 8),
                              v[k]);
            return;
        }
#pragma unroll
        for (int k = 0; k < 8; ++k)
            o[gx0 + ((fb | SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k)) << 8)] = v[k];
        return;
    }
    const unsigned xb = gx0 + (fb << 8);
    if (packed) {
        uint32_t *const lo = reinterpret_cast<uint32_t *>(o) + xb;
        unsigned char *const hi = reinterpret_cast<unsigned char *>(o) + 4 * n + hepa_pcol_hi(xb);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const unsigned off = (unsigned)SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k) << 8;
            lo[off] = (uint32_t)v[k];
            hi[hepa_pcol_hi(off)] = (unsigned char)(v[k] >> 32);
        }
        return;
    }
    uint64_t *const p = o + xb;
#pragma unroll
    for (int k = 0; k < 8; ++k)
        p[(unsigned)SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k) << 8] = v[k];
}

// TARGET HEADS IN SHARED MEMORY (modup1_cols_kernel, modupn_cols_kernel): what the target loop
// needs of each of the block's targets (its map word, its modulus' constants; modupn also the
// FP64 route's hat_k and corr[1] as doubles, modup1 its aux word), loaded by one thread per
// target at the block's start, while the other warps load the sources. Read from global memory
// at the loop's head, map word -> limb context -> twiddles were three dependent loads per
// target: 4.9% of modupn_cols_kernel<8, 3>'s instructions but 13.5% of its stall samples (ncu
// source counters, H100, 2^16/33, P = 3). One shared load replaces the first two (48-80 bytes a
// target). Same-call A/B on an H200, hepa_mul_relin µs: 2^16/33 P = 1 845-846 -> 842, P = 2
// 628 -> 617-619, P = 3 505-507 -> 501-502; 2^17/61 5396-5408 -> 5300-5307. At most
// TARGET_HEADS targets a block (the launchers size their groups so).
#ifndef HEPA_TARGET_HEADS
#define HEPA_TARGET_HEADS 1 // 0: the loads at the loop's head (for A/Bs)
#endif
constexpr unsigned TARGET_HEADS = 32;
struct LimbHead {
    uint64_t q, ratio_hi, tw64; // hepa_dev_limb's: all that a forward column pass reads of it
    double qd, qi;
    uint32_t m; // the map word: limb | data limb << 8
};
__device__ __forceinline__ LimbHead limb_head(const hepa_dev_limb *limbs, uint32_t m) {
    const hepa_dev_limb &lc = limbs[m & 0xff];
    return LimbHead{lc.q, lc.ratio_hi, lc.tw64, lc.qd, lc.qi, m};
}
__device__ __forceinline__ hepa_dev_limb limb_of(const LimbHead &h) {
    hepa_dev_limb lc{};
    lc.q = h.q;
    lc.ratio_hi = h.ratio_hi;
    lc.tw64 = h.tw64;
    lc.qd = h.qd;
    lc.qi = h.qi;
    return lc;
}
struct Modup1Head { // modup1_cols_kernel's
    LimbHead l;
    uint64_t cs; // aux[3y + 1]: q_s mod q
};
// The groups of `nt` targets for a grid of about `blocks` blocks with `per` blocks per group
// (tiles, runs, polynomials), at most TARGET_HEADS targets a group: G targets a group (the last
// may have fewer), and as many groups as that takes (none empty). (A guard: with at most
// HEPA_RING_MAX_MODULI = 64 moduli the launchers' grids never give more than 32 targets a
// group; it only keeps the shared memory of the heads bounded should that limit grow.)
struct TargetGroups {
    size_t groups, G;
};
__host__ inline TargetGroups target_groups(size_t nt, size_t blocks, size_t per) {
    size_t groups = (blocks + per - 1) / per;
    groups = groups < 1 ? 1 : groups > nt ? nt : groups;
    if (HEPA_TARGET_HEADS && groups < (nt + TARGET_HEADS - 1) / TARGET_HEADS)
        groups = (nt + TARGET_HEADS - 1) / TARGET_HEADS;
    const size_t G = (nt + groups - 1) / groups;
    return TargetGroups{(nt + G - 1) / G, G};
}

template <int GB>
__global__ void __launch_bounds__(1 << GB, 1024 >> GB)
    modup1_cols_kernel(uint64_t *out, const uint64_t *in, uint64_t *out_b, const uint64_t *in_b,
                       const uint64_t *__restrict__ tables, const hepa_dev_limb *__restrict__ limbs,
                       unsigned logn, const uint32_t *__restrict__ map,
                       const uint64_t *__restrict__ aux, unsigned run, unsigned runs,
                       unsigned groups, unsigned G, bool pack) {
    pdl_wait(); // PDL
    pdl_trigger();
    constexpr int CB = 3, S = 8;
    constexpr Schedule sch = Sched<GB, CB, false>::value;
    constexpr Map lm = LoadMap<GB, CB, false>::value;
    static_assert(exchanges_conflict_free(GB, CB, false), "an exchange has bank conflicts");
    extern __shared__ __align__(1024) uint64_t smem_dyn[]; // (SHARED-WINDOW EXCHANGES)
    const size_t n = (size_t)1 << logn;
    unsigned ry = blockIdx.y;
    if (ry >= runs * groups) { // the pair's second polynomial
        ry -= runs * groups;
        out = out_b;
        in = in_b;
    }
    const unsigned r = ry / groups, g = ry % groups;
    const unsigned y0 = r * run + g * G, y1 = min(y0 + G, (r + 1) * run);
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned gx0 = blockIdx.x * 8 + (lane & 7);
    // the source words (shared by the group) and their u, one bit per slot
    const uint64_t *src = in + aux[3 * y0] * n;
    const double inv_s = dbl(aux[3 * y0 + 2]);
    const bool src52 = inv_s > 0x1p-52; // q_s < 2^52: the FP64 route applies to FP64 targets
    // CENTRED SOURCE. For q_s < 2^50 (every 40-bit digit) x[k] holds, as double bits, the centred
    // x_c = x - u·q_s (|x_c| <= q_s/2, exact), the same for all targets: an FP64 target needs
    // only x_c mod q, and where q_s < 1.96q it takes x_c as it is (|x_c| < q, within FP64 LIMBS'
    // bounds: 9 stages then stay below 10.2q < 13q; the pass's store makes the words canonical,
    // so they are the words of the reduced route). Before, every target converted, selected
    // and reduced each word (about 10 instructions per element and target, in a kernel bound by
    // instruction issue). q_s is 1/inv_s rounded, exact below 2^50 (relative error <= 2^-52).
    // Integer targets (q >= 2^47) take |x_c| mod q with the sign applied. Measured on an H100
    // (ncu, caches flushed, the fused ModUp's launch): 2^16/33/P=1 452.7 -> 428.2 µs (warp
    // instructions 212 M -> 191 M), 2^17/61 3.49 -> 3.26 ms, 2^15/17 66.1 -> 61.7 µs; tensor +
    // key switch at 2^17/61 6244-6267 -> 6069-6079 µs. (At 2^16 in place, at boost clocks, the
    // packed pass gained only 2 µs: 427-429 -> 426-427 µs with the inverse NTT before it.) The
    // kernel now spills 32 bytes under its 64-register cap (4 before; 36 -> 78 MB of local
    // loads at 2^16); a version with one loop per kind of source spilled more (44-140 bytes).
    const bool cen = inv_s > 0x1p-50;
    const double qsd = cen ? f64_round(__drcp_rn(inv_s)) : 0.0;
    const unsigned b0 = load_base<GB, CB, false>(lane, warp);
    Modup1Head *const heads = reinterpret_cast<Modup1Head *>(smem_dyn + (8 << GB));
    if (HEPA_TARGET_HEADS && threadIdx.x < y1 - y0) { // read after the __syncthreads below
        const unsigned y = y0 + threadIdx.x;
        const uint32_t m = map ? map[y] : y | y << 8;
        heads[threadIdx.x] = Modup1Head{limb_head(limbs, m), aux[3 * y + 1]};
    }
    uint64_t x[8];
    unsigned umask = 0;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
        x[k] = src[gx0 + ((b0 | SlotOff<lm.ps[0], lm.ps[1], lm.ps[2]>::of(k)) << S)];
        const bool u = modup_u_of((double)x[k], inv_s);
        umask |= (unsigned)u << k;
        if (cen) x[k] = bits(__dsub_rn(u2d(x[k]), u ? qsd : 0.0));
    }
    const unsigned fb = thread_base<GB, CB, sch.count - 1, false>(lane, warp);
    if (HEPA_TARGET_HEADS) __syncthreads(); // the heads
    for (unsigned y = y0; y < y1; ++y) {
        uint32_t m;
        hepa_dev_limb lc;
        uint64_t cs;
        if (HEPA_TARGET_HEADS) {
            m = heads[y - y0].l.m;
            lc = limb_of(heads[y - y0].l);
            cs = heads[y - y0].cs;
        } else {
            m = map ? map[y] : y | y << 8; // (no map: limb y, data limb y; y < 256)
            lc = limbs[m & 0xff];
            cs = aux[3 * y + 1];
        }
        const int limb = (int)(m & 0xff);
        const size_t dlimb = m >> 8;
        Ctx c = ctx_of(lc, tables, n, limb, false);
        ctx_f64<true>(c, lc, tables, n, false);
        uint64_t v[8];
        auto stages = [&](auto fp) {
            cols_stages<GB, decltype(fp)::value>(v, c, smem_dyn, lane, warp, gx0, logn);
        };
        if (c.f64) {
            if (cen) {                               // CENTRED SOURCE
                if (__dmul_rn(c.qd, inv_s) > 0.51) { // q_s < 1.96q: |x_c| < 0.98q
#pragma unroll
                    for (int k = 0; k < 8; ++k)
                        v[k] = x[k];
                } else {
#pragma unroll
                    for (int k = 0; k < 8; ++k)
                        v[k] = bits(f64_reduce(dbl(x[k]), c));
                }
            } else if (src52) {
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    v[k] = modup_f64(u2d(x[k]), (umask >> k) & 1u, cs, c);
            } else {
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    v[k] = modup_word(x[k], (umask >> k) & 1u, cs, lc);
                f64_in(v);
            }
            stages(std::true_type{});
        } else {
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                if (cen) { // (CENTRED SOURCE: x_c mod q, |x_c| reduced, then its sign applied)
                    const double xc = dbl(x[k]);
                    const uint64_t a = modup_word((uint64_t)fabs(xc), false, 0, lc);
                    v[k] = xc < 0 && a ? lc.q - a : a;
                } else {
                    v[k] = modup_word(x[k], (umask >> k) & 1u, cs, lc);
                }
            }
            stages(std::false_type{});
        }
        cols_store<GB, false>(out + dlimb * n, n, gx0, fb, v,
                              pack && c.f64 && lc.q < KS_PACK_BELOW);
    }
}

// MODUP COLUMNS, DIGITS OF 2-4 LIMBS (modupn_cols_kernel): key switching's fused ModUp for
// digits of NS = 1..4 limbs (NS = alpha = 2 .. 4; a shorter last digit gets its own launch),
// rings with FP64 limbs at n = 2^15 .. 2^17 (ks_packed). Digit j's exact conversion (conv_core.h,
// table tabs.t[j]; sources: coef limbs j·alpha ..) to each of its targets, then the column pass of
// the target's NTT, stored in PACKED COLUMNS for the fused row pass. Before, the conversion kernel
// wrote every target (in PACKED COLUMNS) and the column pass read it back: at 2^16/33, P = 3,
// ncu (caches flushed) gave 140.6 µs for the conversion (105 MB written) and 183.5 µs for the
// column pass (128 MB read, 107 MB written), both issue-bound.
// Like modup1_cols_kernel, one block per column tile and group of a digit's targets: the block
// loads its NS source words per element once, computes v_k = x_k·(S/s_k)^(-1) mod s_k and the
// exact variant's u (the same operations as hepa_conv_v, _frac_add, _round, so the same u as
// the host) and keeps v_k in shared memory (thread-private, [k][slot][thread]: conflict-free;
// as doubles when the digit's sources allow the FP64 route), u in 4 bits per slot. Then for
// each target: its sum (f64_conv_sum, or hepa_conv_target_ns for integer targets and digits
// with a source above 2^47), the stages, the store. The FP64 route's sum enters the stages
// unreduced for NS <= 3 (SUM UNREDUCED, below: within FP64 LIMBS' bounds for the at most 9
// stages here); for NS = 4 it is reduced first (|.| <= q/2 + 1).
// Shared memory: (1 + NS)·16 KiB at 256 threads (n = 2^16), so 4 blocks per SM for NS = 2 (as
// many as the 64-register cap allows), 3 for NS = 3, 2 for NS = 4. Measured on an H100 against
// the conversion kernel + XF 6 (hepa-bench --ks, 2^16/33, same call, two runs each, multiply +
// relinearize): P = 2 853.6, 855.0 -> 747.9, 745.0 µs; P = 3 674.9, 674.5 -> 623.9, 627.8; P =
// 4 633.2, 633.6 -> 635.4, 635.6 (ModUp + inner product 437 -> 440), so digits of 4 limbs kept
// the two steps then. Re-measured after this kernel's later gains (TARGET HEADS, SOURCE V IN
// FP64, WIDE SOURCES, PDL, EARLY LAST DIGIT), H200, same call, three rounds, µs, P = 4 (8 digits
// of 4 limbs and one of 1): hepa_mul_relin 542.4, 546.5, 545.8 -> 489.1, 489.5, 489.5, ModUp +
// inner product 391.5-393.6 -> 346.9-350.3 (no spills, 124-126 registers at NS = 4); since
// then alpha 4 is fused too (HEPA_DEV_FUSED_CONV_MAX = 3 gives the two steps back). Keeping
// v_k in 6 bytes instead (a 32-bit and a 16-bit array, for digits whose sources are all below
// 2^48: 4 blocks per SM at NS = 3, 3 at NS = 4; digit 0, with the 60-bit q_0, in a launch of its
// own in 8 bytes) was slower in a same-call A/B: P = 3 624 -> 650 µs, P = 4 632 -> 653 with
// alpha 4 fused so (a second load and the recombination per term, 16-20 more bytes of spills
// under the 64-register cap, and digit 0's launch alone).
// NS = 5 serves MODDOWN RESCALE at K = 4 alone (HEPA_DEV_RESCALE_CONV_MAX: 124-126 registers, no
// spills; H100, 2^16/33, same call, two rounds: hepa_mul_relin_rescale 578.2, 577.5 -> 519.8,
// 520.2 µs against the conversion kernel plus a separate column pass).
// (An earlier fusion of these digits into ntt_tile_kernel, one target per block, each reading
// v_k and u back from memory, was slower than the conversion kernel: see hepa_ks_create.)
#ifndef HEPA_MODUPN_CORR_FMA
#define HEPA_MODUPN_CORR_FMA 1 // CORRECTION BY PRODUCT (0: the table load, for A/Bs)
#endif
#ifndef HEPA_MODUPN_SRC_F64
#define HEPA_MODUPN_SRC_F64 1 // SOURCE V IN FP64 (0: hepa_conv_v's integer product, for A/Bs)
#endif
// SUM UNREDUCED. The FP64 route's sum y enters the column stages as it is instead of through
// f64_reduce (4 FP64 operations per word and target, of about 65), for NS <= 3. The bound: each
// term is an f64_mulmod_q of v_k < s_k <= 13t, so |term| <= (1/2 + 13/32)·t < 0.91t, and the
// correction u·corr[1] < NS·t (u <= NS), so |y| < 1.91·NS·t. FP64 LIMBS' forward growth, Y_(s+1)
// = Y_s + 1/2 + Y_s/32, i.e. Y_s = (Y_0 + 16)·(33/32)^s - 16, keeps every stage's f64_mulmod input
// within its Y <= 13 for the GB <= 9 column stages only while Y_0 <= 6.67: NS = 3 gives Y_0 =
// 5.73 and Y_8 < 11.8 (the last stage's input at GB = 9); NS = 4 (Y_0 = 7.64) would exceed it
// at GB = 8 and 9 and keeps the reduction there (modupn_sum_unreduced decides per GB and NS).
// The stages end in f64_out, which makes the words canonical, so the stored words are the same.
// (0: reduce every sum, as before, for A/Bs.) Same-call A/B on an H200 (hepa-bench --ks,
// 2^16/33, two rounds, µs, reduced -> unreduced): P = 3 multiply + relinearize
// 499.2, 500.6 -> 498.7, 498.7 (ModUp + inner product 366.8, 366.9 -> 361.9, 363.2); P = 2
// 617.2, 618.9 -> 611.1, 611.6 (489.6, 490.1 -> 483.4, 484.0); P = 1 and 4 (other kernels) the
// same within 2 µs. I had predicted 4-7 µs at P = 3.
#ifndef HEPA_MODUPN_SUM_UNREDUCED
#define HEPA_MODUPN_SUM_UNREDUCED 1
#endif
// Y_stages from Y_0 (above)
__host__ __device__ constexpr double modupn_stage_bound(double y0, int stages) {
    return stages == 0 ? y0 : modupn_stage_bound(y0 + 0.5 + y0 / 32, stages - 1);
}
// true when the GB column stages' last f64_mulmod input, Y_(GB-1), stays within Y <= 13
template <int GB, int NS> __host__ __device__ constexpr bool modupn_sum_unreduced() {
    return HEPA_MODUPN_SUM_UNREDUCED && modupn_stage_bound(1.91 * NS, GB - 1) <= 13.0;
}
static_assert(modupn_sum_unreduced<9, 3>() || !HEPA_MODUPN_SUM_UNREDUCED, "NS = 3 up to GB = 9");
static_assert(!modupn_sum_unreduced<8, 4>(), "NS = 4 keeps the reduction");
// WIDE SOURCES (f64_conv_sum_wide in f64_arith.cuh): FP64 targets with 2^31 <= 13t of digits
// whose sources do not all allow the FP64 route above (a source above 2^47, as the 60-bit q_0 in
// ModUp's digit 0 and the special primes in ModDown's conversion, or a source above 13t) take
// their sum in doubles too, each source's term split in two products, instead of
// hepa_conv_target_ns's 64-bit Shoup products and the conversion of the word to a double. The
// sum is below (NS + 1.82·NS)·t = 2.82·NS·t; it enters the stages unreduced where FP64 LIMBS'
// bound allows it (NS <= 2 at GB <= 9), else through f64_reduce. Same-call A/B on an H200
// (hepa-bench --ks, 2^16/33, three rounds, µs, integer sum -> WIDE SOURCES): hepa_mul_relin
// P = 2 610.9-613.0 -> 607.0-607.9, P = 3 497.3-500.2 -> 494.4-497.7; ncu, ModDown's
// conversion + column pass P = 3 76.8 -> 71.3, P = 2 68.2 -> 61.3, ModUp's P = 3 246.6 -> 247.8.
// Keeping one product for the sources that allow it (digit 0's 40-bit primes) took ModUp's to
// 245.1 but spilled 108 bytes in modupn_cols_kernel<8, 2>: P = 2 620.0-621.6 µs; not kept.
// (0: the integer sum, for A/Bs.)
#ifndef HEPA_MODUPN_WIDE
#define HEPA_MODUPN_WIDE 1
#endif
template <int GB, int NS> __host__ __device__ constexpr bool modupn_wide_unreduced() {
    return HEPA_MODUPN_SUM_UNREDUCED && modupn_stage_bound(2.82 * NS, GB - 1) <= 13.0;
}
static_assert(modupn_wide_unreduced<9, 2>() || !HEPA_MODUPN_SUM_UNREDUCED, "NS = 2 up to GB = 9");
static_assert(!modupn_wide_unreduced<8, 3>(), "NS = 3 keeps the reduction");
struct ModupnTabs {
    const uint64_t *t[HEPA_CONV_MAX_JOBS]; // digit j's conversion table (device)
};
template <int NS> struct ModupnHead { // modupn_cols_kernel's TARGET HEADS
    LimbHead l;
    double c1, hd[NS]; // u2d(corr[1]), u2d(hat[k]): the FP64 route's (below 2^47 there: exact)
    double hw[NS];     // WIDE SOURCES' 2^31·hat[k] mod t (f64_wide_hw) where f64_wide_ok(t)
};
// The blocks per SM that its shared memory allows (228 KiB an SM, 1 KiB of it reserved per
// block), at most 1024 >> GB: the register budget of __launch_bounds__. For NS = 3 that is 3
// blocks at GB = 8 (80 registers instead of the 64 of 4 blocks, which shared memory never
// allowed: the 64-register build spilled 36-40 bytes), 6 at GB = 7, 1 at GB = 9; for NS <= 2 it
// is 1024 >> GB.
#ifndef HEPA_MODUPN_MINB_SMEM
#define HEPA_MODUPN_MINB_SMEM 1 // 0: 1024 >> GB blocks everywhere (for A/Bs)
#endif
template <int GB, int NS> constexpr size_t modupn_smem(size_t G) { // exchange area, v, heads
    return (size_t)8 * (8 << GB) * (1 + NS) +
           (HEPA_TARGET_HEADS ? G * sizeof(ModupnHead<NS>) : 0);
}
template <int GB, int NS> constexpr int modupn_min_blocks() {
    const int by_smem = (228 << 10) / ((int)modupn_smem<GB, NS>(TARGET_HEADS) + 1024);
    return HEPA_MODUPN_MINB_SMEM && by_smem < (1024 >> GB) ? (by_smem < 1 ? 1 : by_smem)
                                                           : 1024 >> GB;
}
// A target's constants for modupn_cols_kernel's FP64 routes: hat_k and corr[1] as doubles, and
// with WIDE also hw_k (WIDE SOURCES); from its TARGET HEADS entry heads[i], else from the table.
template <int NS, bool WIDE>
__device__ __forceinline__ void modupn_consts(const ModupnHead<NS> *heads, unsigned i,
                                              const uint64_t *tab, unsigned t, const Ctx &c,
                                              double (&hd)[NS], double (&hw)[NS], double &c1) {
    if (HEPA_TARGET_HEADS) {
        const ModupnHead<NS> &h = heads[i];
#pragma unroll
        for (int k = 0; k < NS; ++k) {
            hd[k] = h.hd[k];
            if (WIDE) hw[k] = h.hw[k];
        }
        c1 = h.c1;
    } else {
        const uint64_t *const hat = hepa_conv_hat(tab, NS, t);
#pragma unroll
        for (int k = 0; k < NS; ++k) {
            hd[k] = u2d(hat[k]);
            if (WIDE) hw[k] = f64_wide_hw(hd[k], c.qd, c.qi);
        }
        c1 = u2d(hepa_conv_corr(tab, NS, t)[1]);
    }
}
// A source word v_k as an integer from the block's v area (there a double where src_f64)
__device__ __forceinline__ uint64_t modupn_word(uint64_t x, bool src_f64) {
    return src_f64 ? d2u(dbl(x)) : x;
}
template <int GB, int NS>
__global__ void __launch_bounds__(1 << GB, modupn_min_blocks<GB, NS>())
    modupn_cols_kernel(uint64_t *ext, const uint64_t *coef, const ModupnTabs tabs,
                       const uint64_t *__restrict__ tables, const hepa_dev_limb *__restrict__ limbs,
                       unsigned logn, const uint32_t *__restrict__ map, unsigned j0, unsigned alpha,
                       unsigned run, unsigned groups, unsigned G, bool early) {
    if (!early) pdl_wait(); // PDL (EARLY LAST DIGIT: one block waits, at its end)
    pdl_trigger();
    constexpr int CB = 3, S = 8, T = 1 << GB;
    constexpr Schedule sch = Sched<GB, CB, false>::value;
    constexpr Map lm = LoadMap<GB, CB, false>::value;
    static_assert(NS >= 1 && NS <= 5, "u takes 4 bits a slot: at most 15");
    extern __shared__ __align__(1024) uint64_t smem_dyn[]; // (SHARED-WINDOW EXCHANGES)
    // the exchange area (8T words), then v: v_k of slot s at vs[(8k + s)·T]
    uint64_t *const vs = smem_dyn + 8 * T + threadIdx.x;
    const size_t n = (size_t)1 << logn;
    const unsigned j = j0 + blockIdx.y / groups, g = blockIdx.y % groups;
    const uint64_t *const tab = tabs.t[j];
    const unsigned t0 = g * G, t1 = min(t0 + G, (unsigned)tab[1]);
    const uint32_t *const dmap = map + (size_t)j * run; // digit j's targets (full digits before)
    const uint64_t *const src = coef + (size_t)j * alpha * n;
    uint64_t smax = 0;
#pragma unroll
    for (int k = 0; k < NS; ++k)
        smax = max(smax, tab[4 + 4 * k]);
    const bool src_f64 = smax < HEPA_DEV_F64_BELOW;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned gx0 = blockIdx.x * 8 + (lane & 7);
    const unsigned b0 = load_base<GB, CB, false>(lane, warp);
    ModupnHead<NS> *const heads = reinterpret_cast<ModupnHead<NS> *>(smem_dyn + 8 * T * (1 + NS));
    if (HEPA_TARGET_HEADS && threadIdx.x < t1 - t0) { // read after the __syncthreads below
        const unsigned t = t0 + threadIdx.x;
        ModupnHead<NS> h;
        h.l = limb_head(limbs, dmap[t]);
        h.c1 = u2d(hepa_conv_corr(tab, NS, t)[1]);
        const uint64_t *const hat = hepa_conv_hat(tab, NS, t);
        const bool wide = f64_wide_ok(h.l.q);
#pragma unroll
        for (int k = 0; k < NS; ++k) {
            h.hd[k] = u2d(hat[k]);
            h.hw[k] = wide ? f64_wide_hw(h.hd[k], h.l.qd, h.l.qi) : 0.0;
        }
        heads[threadIdx.x] = h;
    }
    unsigned umask = 0;
    {
        double f[8];
#pragma unroll
        for (int s = 0; s < 8; ++s)
            f[s] = 0;
#pragma unroll
        for (int k = 0; k < NS; ++k) {
            // (b0's bits and the slots' are disjoint: one base, immediate offsets)
            const uint64_t *const sk = src + k * n + gx0 + (b0 << S);
            uint64_t x[8];
#pragma unroll
            for (int s = 0; s < 8; ++s)
                x[s] = sk[(unsigned)SlotOff<lm.ps[0], lm.ps[1], lm.ps[2]>::of(s) << S];
            if (HEPA_MODUPN_SRC_F64 && src_f64) {
                // SOURCE V IN FP64: v_k = x·inv_hat_k mod s_k by f64_mulmod_q (s_k < 2^47, x and
                // inv_hat_k in [0, s_k): exact, |r| < 0.91 s_k) and the sign fix-up, the same
                // word as hepa_conv_v's, already a double for the fraction and the store. The
                // integer Shoup product took about 23 of the 48 instructions per source word:
                // the per-block part was 15.7% of the kernel's instructions at 2^16/33, P = 3.
                const uint64_t *const sw = tab + 4 + 4 * k; // s_k, inv_hat_k, -, 1/s_k
                const double sd = u2d(sw[0]), wd = u2d(sw[1]), si = dbl(sw[3]);
#pragma unroll
                for (int s = 0; s < 8; ++s) {
                    const double vd = f64_nonneg_q(f64_mulmod_q(u2d(x[s]), wd, sd, si), sd);
                    f[s] = __dadd_rn(f[s], __dmul_rn(vd, si)); // = hepa_conv_frac_add
                    vs[(8 * k + s) * T] = bits(vd);
                }
            } else {
#pragma unroll
                for (int s = 0; s < 8; ++s) {
                    const uint64_t v = hepa_conv_v(tab, k, x[s]);
                    f[s] = hepa_conv_frac_add(f[s], tab, k, v);
                    vs[(8 * k + s) * T] = v;
                }
            }
        }
#pragma unroll
        for (int s = 0; s < 8; ++s)
            umask |= (unsigned)hepa_conv_round(f[s]) << (4 * s);
    }
    const unsigned fb = thread_base<GB, CB, sch.count - 1, false>(lane, warp);
    if (HEPA_TARGET_HEADS) __syncthreads(); // the heads
    for (unsigned t = t0; t < t1; ++t) {
        hepa_dev_limb lc;
        uint32_t m;
        if (HEPA_TARGET_HEADS) {
            m = heads[t - t0].l.m;
            lc = limb_of(heads[t - t0].l);
        } else {
            m = dmap[t];
            lc = limbs[m & 0xff];
        }
        const int limb = (int)(m & 0xff);
        const size_t dlimb = m >> 8;
        Ctx c = ctx_of(lc, tables, n, limb, false);
        ctx_f64<true>(c, lc, tables, n, false);
        uint64_t v[8];
        auto stages = [&](auto fp) {
            cols_stages<GB, decltype(fp)::value>(v, c, smem_dyn, lane, warp, gx0, logn);
        };
        if (c.f64 && src_f64 && smax <= 13 * lc.q) { // conv_pair's FP64 route
            double hd[NS], hw[NS], c1;
            modupn_consts<NS, false>(heads, t - t0, tab, t, c, hd, hw, c1);
            // CORRECTION BY PRODUCT: corr[u] = u·corr[1] mod t, and u·corr[1] < NS·t (u <= NS) is
            // exact in a double; the sum is then below (NS + 0.91·NS)·t < 6t in magnitude, within
            // the stages' bounds (SUM UNREDUCED) and f64_reduce's range, so the word is the same.
            // One product per word instead of a table load (its address and its conversion).
#pragma unroll
            for (int s = 0; s < 8; ++s) {
                double vd[NS];
#pragma unroll
                for (int k = 0; k < NS; ++k)
                    vd[k] = dbl(vs[(8 * k + s) * T]);
                const unsigned u = (umask >> (4 * s)) & 15u;
                const double cu = HEPA_MODUPN_CORR_FMA ? __dmul_rn((double)u, c1)
                                                       : u2d(hepa_conv_corr(tab, NS, t)[u]);
                const double y = f64_conv_sum<NS>(cu, vd, hd, c.qd, c.qi);
                // SUM UNREDUCED: |y| < 1.91·NS·t
                v[s] = bits(modupn_sum_unreduced<GB, NS>() ? y : f64_reduce(y, c));
            }
            stages(std::true_type{});
        } else if (HEPA_MODUPN_WIDE && c.f64 && f64_wide_ok(lc.q)) { // WIDE SOURCES
            double hd[NS], hw[NS], c1;
            modupn_consts<NS, true>(heads, t - t0, tab, t, c, hd, hw, c1);
#pragma unroll
            for (int s = 0; s < 8; ++s) {
                uint64_t w[NS];
#pragma unroll
                for (int k = 0; k < NS; ++k)
                    w[k] = modupn_word(vs[(8 * k + s) * T], src_f64);
                const unsigned u = (umask >> (4 * s)) & 15u;
                const double y = f64_conv_sum_wide<NS>(__dmul_rn((double)u, c1), w, hd, hw, c.qd,
                                                       c.qi); // |y| < 2.82·NS·t
                v[s] = bits(modupn_wide_unreduced<GB, NS>() ? y : f64_reduce(y, c));
            }
            stages(std::true_type{});
        } else {
#pragma unroll
            for (int s = 0; s < 8; ++s) {
                uint64_t w[NS];
#pragma unroll
                for (int k = 0; k < NS; ++k)
                    w[k] = modupn_word(vs[(8 * k + s) * T], src_f64);
                v[s] = hepa_conv_target_ns(tab, NS, t, w, 1, (umask >> (4 * s)) & 15u); // [0, q)
            }
            if (c.f64) {
                f64_in(v);
                stages(std::true_type{});
            } else {
                stages(std::false_type{});
            }
        }
        cols_store<GB, true>(ext + dlimb * n, n, gx0, fb, v, c.f64 && lc.q < KS_PACK_BELOW);
    }
    if (early && blockIdx.x == 0 && blockIdx.y == 0) pdl_wait(); // EARLY LAST DIGIT
}

// n <= 2^9: one block per limb, n/2 threads, one butterfly per thread per stage, shared memory
// between stages. Also fuses the pointwise product for the inverse.
template <bool INV, bool FUSED>
__global__ void ntt_small_kernel(uint64_t *out, const uint64_t *in, const uint64_t *in2,
                                 const uint64_t *__restrict__ tables,
                                 const hepa_dev_limb *__restrict__ limbs, int logn,
                                 const uint32_t *__restrict__ map) {
    extern __shared__ uint64_t smem[];
    const size_t n = (size_t)1 << logn;
    const int limb = map ? (int)(map[blockIdx.y] & 0xff) : (int)blockIdx.y; // as in ntt_tile_kernel
    const size_t off = (map ? (size_t)(map[blockIdx.y] >> 8) : (size_t)limb) * n;
    const ulonglong2 *tw =
        reinterpret_cast<const ulonglong2 *>(tables + 4 * n * (size_t)limb + (INV ? 2 * n : 0));
    const hepa_dev_limb lc = limbs[limb];
    const uint64_t q = lc.q;
    for (size_t x = threadIdx.x; x < n; x += blockDim.x) {
        if (FUSED) {
            const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
            smem[x] = hepa_mod_mul(in[off + x], in2[off + x], &mod);
        } else {
            smem[x] = in[off + x];
        }
    }
    __syncthreads();
    const size_t p = threadIdx.x; // butterfly number in [0, n/2)
    for (int s = 0; s < logn; ++s) {
        const int bit = INV ? s : logn - 1 - s;
        const size_t lo = p & (((size_t)1 << bit) - 1);
        const size_t x = ((p >> bit) << (bit + 1)) | lo, y = x + ((size_t)1 << bit);
        const size_t idx = (n >> (bit + 1)) + (x >> (bit + 1));
        uint64_t a = smem[x], b = smem[y];
        if (!INV) {
            hepa_butterfly_ct_lazy(&a, &b, tw[idx].x, tw[idx].y, q);
        } else if (bit < logn - 1) {
            hepa_butterfly_gs_lazy(&a, &b, tw[idx].x, tw[idx].y, q);
        } else {
            const uint64_t u = a, w = b;
            a = hepa_mul_shoup_lazy(u + w, lc.n_inv, lc.n_inv_shoup, q);
            b = hepa_mul_shoup_lazy(u - w + 2 * q, lc.n_inv_w, lc.n_inv_w_shoup, q);
        }
        smem[x] = a; // pairs are disjoint within a stage: no barrier between read and write
        smem[y] = b;
        __syncthreads();
    }
    for (size_t x = threadIdx.x; x < n; x += blockDim.x)
        out[off + x] = INV ? hepa_reduce_2q(smem[x], q) : hepa_reduce_4q(smem[x], q);
}

// KEY SWITCHING: ModUp's last NTT pass fused with the inner product (_hepa_dev_ks_rows_inner).
// A block is four warps, each one 256-element row (the row pass's tile) of extended limb e =
// blockIdx.y, modulus mi. For every digit j it takes that row of ext limb j·E + e as the earlier
// passes left it (or, for the digit's own limb, of the NTT-domain input c: no transform), runs
// the row pass's stages, and adds v·b_j and v·a_j (key rows of modulus mi, same positions) into
// sums in registers. Only t0 and t1 are written: against the row pass followed by the
// inner-product kernel, the dnum·E transformed limbs are neither written nor read back. Every
// digit of a block has the same modulus, so the twiddles are staged once (STAGED TWIDDLES) for
// all of them. While digit j is transformed, digit j+1's data row is on its way into shared
// memory (cp.async), and its key rows are issued as soon as digit j's products have read the
// one key buffer, a whole row pass before they are needed.
// The sums:
//  - integer rows: 128-bit sums, reduced mod q every 16 digits and at the end (16 products below
//    (2^62)^2 plus a residue stay below 2^128, as in ks_inner_kernel);
//  - FP64 rows (F64, an FP64 limb): each product exactly as f64_mulmod (|term| < 0.91q) straight
//    from the row pass's doubles and the key word as a double, summed in a double, reduced to
//    |.| <= q/2 + 1 every 16 digits (so below 15q < 2^51, exact) and made canonical at the end.
//    Against converting the row to words and taking 128-bit integer sums this drops the
//    canonicalisation of every transformed row and the 32 registers of the high words (H100,
//    same call, hepa-bench-style timing of tensor + key switch at 2^16/33, P = 1 / 2 / 3 / 4,
//    with the key buffer single as below: 1120 / 915 / 706 / 670 -> 1034 / 865 / 695 / 654 µs;
//    ncu at P = 1: this kernel 659 -> 496 µs, DRAM throughput 54% -> 72%).
// Shared memory per block, words: exchange 4·256, twiddles 4·512, data 4·256, key 4·512 (48 KiB).
// 3 blocks per SM, whence the 168-register budget. With the FP64 sums, 4 blocks per SM (128
// registers, 170-220 bytes of spills) measured 1081 µs at P = 1 and 5 blocks (96 registers, an
// FP64-only build on a ring of 40-bit primes) 1037 against 994 for 3; double-buffered key rows
// issued with the data row (64 KiB) measured the same as the single buffer within 1%.
// The FP64 digit loop alone (a kernel of its own for the Q rows of 40-bit limbs) still takes 158
// registers; capped at 128 / 112 / 96 it spills 44 / 108 / 200 bytes and hepa_mul_relin at
// 2^16/33 P = 3 went 532-535 -> 558 / 582 / 615 µs (H100, ef524e8, same call:
// bench/results/2026-12-06-h100-ks-rows-regcap-ef524e8.md), though fewer registers would let
// more Q-row blocks sit beside key switching's helper chain. Fewer live values per thread (the
// 16 sums, the 8 row values) would be needed, not a cap.
// Measured on an H100 when the kernel came (hepa-bench --ks, ModUp + inner product, N = 2^16,
// 33 Q primes, P = 1, whose passes before this one took 650 µs; unfused: ModUp 1416 + inner
// product 593 µs):
//   products reduced mod q one by one (hepa_mod_mul + hepa_mod_add), loads from global
//   memory, 4 blocks per SM: 1885 µs (6 blocks per SM, 80 registers: 1879; 8: 1914);
//   128-bit sums, loads from global memory: 1754 µs with 4 blocks per SM, 1647 with 5 (244
//   bytes of spills), 1765 with 6;
//   128-bit sums and cp.async prefetch: 1483 µs with 4 blocks per SM (128 registers, spills),
//   1407 µs with 3 (kept).
// N = 2^17 with 61 primes: 12.7 ms (first row above) -> 9.6 ms; N = 2^15 with 17: 316 -> 229 µs.
// F64 (rings with a limb below HEPA_DEV_F64_BELOW, n >= 2^16, or 2^15 with PACKED COLUMNS: see
// _hepa_dev_ks_rows_inner): the row pass of such limbs on the FP64 pipe (FP64 LIMBS; 8 stages
// from [0, q), inside its bounds). 168 registers (the digit loop is compiled twice, FP64 and
// integer rows, and one is picked per block). The key's rows come in either word size (PACKED
// KEYS, ksk_layout.h), chosen per block at run time: ptxas spills 20-36 bytes in each build;
// compiling the digit loop per key word size as well spilled 100-120 bytes (128-bit sums).
// DIGIT SPLIT (SPLIT, small grids: see _hepa_dev_ks_rows_inner): one row a block, warp w takes
// the digits j = w mod 4, and the four warps' words in [0, q) are added mod q at the end.
// Keeping ModUp's transforms on chip instead (thread-block clusters, one extended limb per
// cluster, sums in shared memory) was tried and measured 2x slower (16 warps per SM, latency
// bound): bench/results/2026-11-22-h100-ks-cluster-experiment.md.
constexpr unsigned KS_ROWS_SMEM_WORDS = 4 * 256 + 4 * 512 + 4 * 256 + 4 * 512;
template <bool F64, bool PACKED, bool SPLIT>
__global__ void __launch_bounds__(128, 3)
    ks_rows_inner_kernel(uint64_t *t0, uint64_t *t1, const uint64_t *ext, const uint64_t *cin,
                         const unsigned char *key, const uint64_t *__restrict__ tables,
                         const hepa_dev_limb *__restrict__ limbs, unsigned logn, unsigned l,
                         unsigned L, unsigned E, unsigned dnum, unsigned alpha, size_t comp,
                         uint64_t packed, unsigned i0, bool pack_q, bool last_first) {
    pdl_wait(); // PDL
    pdl_trigger();
    constexpr int GB = 8, CB = 0, S = 0;
    constexpr Schedule sch = Sched<GB, CB, false>::value;
    constexpr Map lm = LoadMap<GB, CB, false>::value;
    constexpr Map fm = sch.steps[sch.count - 1].map;
    extern __shared__ __align__(1024) uint64_t smem_dyn[]; // (SHARED-WINDOW EXCHANGES)
    const size_t n = (size_t)1 << logn;
    // the E - l special primes' limbs first: they take the integer rows, slower than the FP64
    // rows of 40-bit limbs, and as the grid's last blocks they drew out its last wave (a launch
    // may be rows i0 ... of that order: see _hepa_dev_ks_rows_inner); then q_0 .. q_(l-1), or
    // with last_first q_(l-1) and then q_0 .. q_(l-2) (MODDOWN RESCALE, keyswitch.c, runs the
    // special primes' rows and q_(l-1)'s in one launch)
    const unsigned iy = i0 + blockIdx.y, iq = iy - (E - l);
    const unsigned e = iy < E - l ? l + iy : !last_first ? iq : iq == 0 ? l - 1 : iq - 1;
    const unsigned mi = e < l ? e : L + e - l;
    const unsigned lane = threadIdx.x & 31, warp = 0, tl = threadIdx.x >> 5;
    // DIGIT SPLIT (SPLIT): the block's four warps take the same row, warp tl the digits j = tl,
    // tl + 4, ..., and add their sums at the end; else four rows, every digit
    const size_t row = SPLIT ? (size_t)blockIdx.x : (size_t)blockIdx.x * 4 + tl;
    const unsigned j0 = SPLIT ? tl : 0;
    constexpr unsigned step = SPLIT ? 4 : 1;
    const unsigned gx0 = (unsigned)(row << 8);
    uint64_t *xch = smem_dyn + (size_t)tl * 256;                                // exchanges
    uint64_t *twb = smem_dyn + 4 * 256;                                         // staged twiddles
    uint64_t *dbuf = smem_dyn + 4 * 256 + 4 * 512 + (size_t)tl * 256;           // next data row
    uint64_t *kbuf = smem_dyn + 4 * 256 + 4 * 512 + 4 * 256 + (size_t)tl * 512; // key rows b, a
    const hepa_dev_limb lc = limbs[mi];
    const hepa_modulus mod = {lc.q, lc.ratio_hi, lc.ratio_lo};
    Ctx c = ctx_of(lc, tables, n, mi, false);
    ctx_f64<F64>(c, lc, tables, n, false); // FP64 LIMBS
    const unsigned own = e < l ? e / alpha : ~0u; // the digit whose own limb e is
    // the other digits' rows of this limb come in 5 bytes (PACKED COLUMNS): into dbuf as 256
    // uint32_t, then 256 bytes
    const bool pk = F64 && PACKED && c.f64 && lc.q < KS_PACK_BELOW;
    // the key's rows of this limb (PACKED KEYS: 5-byte words when kp; in the key buffer as
    // 256 uint32_t, then 256 bytes)
    const bool kp = packed >> mi & 1;
    const unsigned char *krow = key + hepa_ksk_limb_at(packed, n, mi) + (kp ? 4 : 8) * gx0;
    const unsigned char *khi = key + hepa_ksk_limb_at(packed, n, mi) + 4 * n + gx0;
    // digit j's key rows b and a into the key buffer (16 bytes per copy)
    auto issue_key = [&](unsigned j) {
        const size_t kj = 2 * (size_t)j * comp;
        char *kd = reinterpret_cast<char *>(kbuf);
#pragma unroll
        for (int t = 0; t < 4; ++t) {
            const unsigned b = 16 * (lane + 32 * t);
            if (!kp || t < 2) {
                cp_async16(kd + b, krow + kj + b);
                cp_async16(kd + 2048 + b, krow + kj + comp + b);
            } else if (t == 2 && lane < 16) {
                cp_async16(kd + 1024 + 16 * lane, khi + kj + 16 * lane);
                cp_async16(kd + 2048 + 1024 + 16 * lane, khi + kj + comp + 16 * lane);
            }
        }
        cp_async_commit();
    };
    // digit j's data row into dbuf
    auto issue_data = [&](unsigned j) {
        if constexpr (PACKED) {
            // a packed row: its low 32 bits (1 KiB), then its high bytes (256, in column
            // order in dbuf: tile t's 8 bytes from the block's 1 KiB of PACKED COLUMNS' high
            // bytes, row tl of each 32-byte sector; .ca, so the block's 4 rows share the sectors)
            const bool p = pk && j != own;
            const char *slice = reinterpret_cast<const char *>(ext + ((size_t)j * E + e) * n);
            const char *d = j == own ? reinterpret_cast<const char *>(cin + (size_t)e * n + gx0)
                                     : slice + (p ? 4 : 8) * (size_t)gx0;
            char *db = reinterpret_cast<char *>(dbuf);
#pragma unroll
            for (int t = 0; t < 4; ++t) {
                const unsigned b = 16 * (lane + 32 * t);
                if (!p || t < 2)
                    cp_async16(db + b, d + b);
                else if (t == 2)
                    cp_async8(db + 1024 + 8 * lane, slice + 4 * n + (gx0 & ~1023u) + 32 * lane +
                                                        8 * (SPLIT ? (unsigned)(row & 3) : tl));
            }
        } else {
            const uint64_t *d =
                j == own ? cin + (size_t)e * n + gx0 : ext + ((size_t)j * E + e) * n + gx0;
#pragma unroll
            for (int t = 0; t < 4; ++t) {
                const unsigned w = 2 * (lane + 32 * t);
                cp_async16(dbuf + w, d + w);
            }
        }
        cp_async_commit();
    };
    if (!SPLIT || j0 < dnum) {
        issue_data(j0);
        issue_key(j0);
    }
    // the row's twiddles, outside the digit loop's choice below (inside it, ptxas spilled 48
    // bytes in the F64 instantiation); the staging also waits for digit 0's copies
    if (F64 && c.f64)
        c.twsd = stage_row_twiddles_f64(c.twd, twb, tl, row, n, lane);
    else
        c.tws = stage_row_twiddles(c.tw, twb, tl, row, n, lane);
    const unsigned b0 = load_base<GB, CB, false>(lane, warp);
    const unsigned fb = thread_base<GB, CB, sch.count - 1, false>(lane, warp);
    // the sums: integer rows, 128-bit (hi, lo); FP64 rows, doubles (their bits in lo)
    uint64_t lo0[8], lo1[8], hi0[8], hi1[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) lo0[k] = lo1[k] = hi0[k] = hi1[k] = 0;
    // The digit loop, FP64 or integer row passes (FP: see stage), chosen once for the block:
    // with the choice inside the loop ptxas spilled 56 bytes in the F64 instantiation.
    // Copies in flight: digit j + 1's data row is issued once digit j's is in registers, and
    // its key rows once digit j's products are done (one key buffer), so each waits for
    // everything but the copy issued after it (cp_async_wait_but_last; groups complete in order).
    auto digits = [&](auto fp) {
        constexpr bool FP = decltype(fp)::value;
        for (unsigned j = j0, it = 0; j < dnum; j += step, ++it) {
            const bool more = j + step < dnum; // (this warp's next digit is j + step)
            cp_async_wait_but_last(); // digit j's data row (its key rows may still be on the way)
            __syncwarp();
            uint64_t v[8];
            if (j == own) { // the digit's own limb: c, already in the NTT domain, final positions
#pragma unroll
                for (int k = 0; k < 8; ++k) {
                    v[k] = dbuf[fb | SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k)];
                    if constexpr (FP) v[k] = bits(u2d(v[k])); // (an FP64 row's value)
                }
            } else if (FP && pk) {
                const uint32_t *blo = reinterpret_cast<const uint32_t *>(dbuf);
                const uint8_t *bhi = reinterpret_cast<const uint8_t *>(blo + 256);
#pragma unroll
                for (int k = 0; k < 8; ++k) { // straight to the FP64 path's double
                    const unsigned x = b0 | SlotOff<lm.ps[0], lm.ps[1], lm.ps[2]>::of(k);
                    v[k] = bits(u2d(blo[x] | (uint64_t)bhi[x] << 32));
                }
            } else {
#pragma unroll
                for (int k = 0; k < 8; ++k)
                    v[k] = dbuf[b0 | SlotOff<lm.ps[0], lm.ps[1], lm.ps[2]>::of(k)];
                if constexpr (FP) f64_in(v);
            }
            __syncwarp(); // every lane has read dbuf
            if (more) issue_data(j + step);
            if (j != own) {
                ulonglong2 tw[4];
                prefetch_step<GB, CB, S, false, true, true, FP, 0>(tw, c, lane, warp, gx0, logn);
                run_steps<GB, CB, S, false, true, true, FP, 0>(v, c, xch, lane, warp, gx0, logn,
                                                               tw);
                if constexpr (!FP) {
#pragma unroll
                    for (int k = 0; k < 8; ++k) v[k] = hepa_reduce_4q(v[k], c.q); // [0, q)
                }
            }
            // digit j's key rows (with the next digit's data row still on the way, if issued)
            if (more)
                cp_async_wait_but_last();
            else
                cp_async_wait_all();
            __syncwarp();
            const uint64_t *kb = kbuf, *ka = kb + 256;
            const uint32_t *kbl = reinterpret_cast<const uint32_t *>(kb), *kal = kbl + 512;
            const uint8_t *kbh = reinterpret_cast<const uint8_t *>(kbl + 256), *kah = kbh + 2048;
#pragma unroll
            for (int k = 0; k < 8; ++k) {
                const unsigned x = fb | SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k);
                const uint64_t wb = kp ? kbl[x] | (uint64_t)kbh[x] << 32 : kb[x];
                const uint64_t wa = kp ? kal[x] | (uint64_t)kah[x] << 32 : ka[x];
                if constexpr (FP) {
                    // FP64 sums: v·w - round(v·w/q)·q exactly (|v| < 9q after the row pass, or
                    // [0, q); w in [0, q)), |term| < 0.91q, so 16 terms on a sum reduced to
                    // |.| <= q/2 + 1 stay below 15q < 2^51: exact doubles
                    const double y = dbl(v[k]);
                    lo0[k] = bits(__dadd_rn(dbl(lo0[k]), f64_mulmod(y, u2d(wb), c)));
                    lo1[k] = bits(__dadd_rn(dbl(lo1[k]), f64_mulmod(y, u2d(wa), c)));
                } else {
                    hepa_mac64(v[k], wb, &hi0[k], &lo0[k]);
                    hepa_mac64(v[k], wa, &hi1[k], &lo1[k]);
                }
            }
            __syncwarp(); // every lane has read the key buffer
            if (more) issue_key(j + step);
            if (((SPLIT ? it : j) & 15) == 15 || !more) {
#pragma unroll
                for (int k = 0; k < 8; ++k) {
                    if constexpr (FP) {
                        const bool last = !more;
                        lo0[k] =
                            last ? f64_canonical(dbl(lo0[k]), c) : bits(f64_reduce(dbl(lo0[k]), c));
                        lo1[k] =
                            last ? f64_canonical(dbl(lo1[k]), c) : bits(f64_reduce(dbl(lo1[k]), c));
                    } else {
                        lo0[k] = hepa_mod_reduce128(hi0[k], lo0[k], &mod);
                        lo1[k] = hepa_mod_reduce128(hi1[k], lo1[k], &mod);
                        hi0[k] = hi1[k] = 0;
                    }
                }
            }
        }
    };
    if (F64 && c.f64)
        digits(std::bool_constant<F64>{});
    else
        digits(std::false_type{});
    // PACKED Q LIMBS (pack_q: ModDown's last pass reads them so, XF 9 or 10 of ntt_tile_kernel,
    // see _hepa_dev_ntt_moddown's packed_t): a Q limb
    // that the other digits' rows came packed for (pk) goes out in 5 bytes as well, words in
    // [0, q) below 2^40. t0 / t1's Q limbs are 2·l·n words written here and read once by
    // ModDown's last pass, both passes bound by DRAM: 3/8 of those bytes are saved twice (13 MB
    // each way at 2^16/33). The store code also took ptxas's spills of this build from 36 / 60
    // to 12 / 12 bytes. H100, same call, two rounds, hepa_mul_relin µs: 2^16/33 P = 1 943.6,
    // 941.4 -> 925.8, 922.7; P = 3 605.2, 601.7 -> 583.7, 586.3; P = 2 723.0, 718.9 -> 702.1,
    // 705.6; P = 4 609.4, 610.8 -> 595.8, 596.8; 2^15/17 204.5, 204.0 -> 203.2, 202.5; 2^17/61
    // 5901.6 -> 5807.8. Then for ModDown without the tensor (XF 10: hepa_keyswitch_add, rotation),
    // same call, rotate µs: 2^16/33 P = 1 912.0, 910.1 -> 905.1, 903.6; P = 3 572.2, 574.1 ->
    // 562.7, 566.1; P = 2 692.8, 687.7 -> 683.1, 683.4; P = 4 587.1, 582.8 -> 577.7, 575.7;
    // 2^15/17 201.4, 199.9 -> 199.3, 199.3; 2^17/61 5798.2 -> 5753.0.
    // Then ModDown's pair between its passes in PACKED COLUMNS as well (FxArgs::packed_t), same
    // call, two rounds, hepa_mul_relin µs: 2^16/33 P = 1 921.7, 924.8 -> 918.7, 921.3; P = 3
    // 591.9, 589.1 -> 581.2, 581.2; P = 2 702.1, 706.4 -> 699.9, 699.4; P = 4 594.2, 593.1 ->
    // 589.7, 589.0; 2^15/17 202.9, 202.2 -> 200.8, 199.9; 2^17/61 5803.8 -> 5787.7 (rotation
    // within 2 µs either way). It also took ptxas's spills of the XF 9 row kernel from 34 / 36
    // to 8 / 4 bytes.
    const bool pq = pack_q && pk && e < l;
    uint64_t *const t0l = t0 + (size_t)e * n, *const t1l = t1 + (size_t)e * n;
    if constexpr (SPLIT) {
        // DIGIT SPLIT: each warp's sums are words in [0, q) (the loop's last step, or 0 for a
        // warp without digits); through the key buffers (each warp's own, its copies all
        // complete), then the row's 2·256 sums of the four, coalesced
        uint64_t *const sb = smem_dyn + 4 * 256 + 4 * 512 + 4 * 256;
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const unsigned x = fb | SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k);
            kbuf[x] = lo0[k];
            kbuf[256 + x] = lo1[k];
        }
        __syncthreads();
#pragma unroll
        for (unsigned i = threadIdx.x; i < 512; i += 128) {
            uint64_t v = sb[i];
#pragma unroll
            for (unsigned w = 1; w < 4; ++w) v = hepa_mod_add(v, sb[512 * w + i], lc.q);
            uint64_t *const tl_ = i < 256 ? t0l : t1l;
            const size_t x = gx0 + (i & 255);
            if (pq)
                hepa_pack5_put(tl_, n, x, v);
            else
                tl_[x] = v;
        }
    } else {
#pragma unroll
        for (int k = 0; k < 8; ++k) {
            const size_t x = gx0 + (fb | SlotOff<fm.ps[0], fm.ps[1], fm.ps[2]>::of(k));
            if (pq) {
                hepa_pack5_put(t0l, n, x, lo0[k]);
                hepa_pack5_put(t1l, n, x, lo1[k]);
            } else {
                t0l[x] = lo0[k];
                t1l[x] = lo1[k];
            }
        }
    }
}

// tile_body's dynamic shared memory for a block of TILES tiles: an exchange area for every tile
// but column tiles without warp bits (they never exchange), then with STG the staged twiddles
constexpr size_t tile_smem_bytes(int GB, int CB, int TILES, bool INV, bool STG) {
    const bool lane_smem = lane_bits_smem(GB, CB, INV);
    const bool exchanges = lane_smem || !(CB > 0 && GB - 3 - (5 - CB) == 0);
    return (exchanges ? ((size_t)8 * TILES << (GB + CB)) : 0) +
           (STG ? (size_t)TILES * 256 * sizeof(ulonglong2) : 0);
}
template <int GB, int CB, int S, int TILES, bool INV, bool FUSED, bool LAST, bool STG = false,
          int XF = 0>
cudaError_t launch_tile(uint64_t *out, const uint64_t *in, const uint64_t *in2,
                        const hepa_ring *ring, size_t level, unsigned tile_stride, size_t tiles,
                        cudaStream_t st, uint64_t *out_b, const uint64_t *in_b, const uint32_t *map,
                        unsigned seg_bits = 31, unsigned seg_stride = 0,
                        const uint64_t *aux = nullptr, const uint64_t *in2_b = nullptr,
                        const uint64_t *acc = nullptr, const uint64_t *acc_b = nullptr,
                        const uint64_t *mb = nullptr, const uint64_t *mb_b = nullptr) {
    constexpr int TPT = 1 << (GB + CB - 3);
    constexpr size_t smem = tile_smem_bytes(GB, CB, TILES, INV, STG);
    // rings with a modulus below 2^47 get the kernels that can run FP64 butterflies; the others
    // keep kernels without that code (with it, the 60-bit inverse NTT at n = 2^16, L = 34 took
    // 59 µs instead of 53.5 on an H100: more registers, spills)
    // (XF 8 is launched only where ring->dev->f64, its callers check; XFI keeps the kernel that
    // is never taken for it from being built)
    constexpr int XFI = XF == 8 ? 0 : XF;
    auto kern = XF == 8 || ring->dev->f64
                    ? ntt_tile_kernel<GB, CB, S, TILES, INV, FUSED, LAST, STG, XF, true>
                    : ntt_tile_kernel<GB, CB, S, TILES, INV, FUSED, LAST, STG, XFI, false>;
    if (smem > 48 * 1024) {
        cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             (int)smem);
        if (e != cudaSuccess) return e;
    }
    // (XF 9, a pair: both polynomials' rows in each block, PAIR BLOCKS in tile_body)
    constexpr bool X9 = XF == 9 || XF == 11; // (MODDOWN TENSOR, MODDOWN RESCALE)
    dim3 grid((unsigned)(X9 ? 2 * tiles / TILES : tiles / TILES),
              (unsigned)(out_b && !X9 ? 2 * level : level));
    // NINE ROW BLOCKS PER SM: where the row grid is more than one wave of the 1024-thread
    // build's blocks (8 per SM)
    if constexpr (XF == 8 && !INV && LAST && STG && TILES * TPT == 128)
        if (HEPA_NTT_ROWS9 &&
            (size_t)grid.x * grid.y > (size_t)ring->dev->sms * (1024 / (TILES * TPT)))
            kern = ntt_tile_kernel<GB, CB, S, TILES, INV, FUSED, LAST, STG, XF, true, 9>;
    return launch_k(true, ring, kern, grid, TILES * TPT, smem, st, out, in, in2,
                    (const uint64_t *)ring->dev->tables, (const hepa_dev_limb *)ring->dev->limbs,
                    (unsigned)ring->log_n, tile_stride, seg_bits, seg_stride, out_b, in_b,
                    (unsigned)level, map, aux, in2_b, acc, acc_b, mb, mb_b);
}

// The column pass of FX_MODUP1 / FX_MODDOWN1 for n in [2^13, 2^17] (modup1_cols_kernel): count
// targets in runs of `run` sharing a source (a pair when out_b: twice the blocks). Groups are
// sized so that the grid has about HEPA_MODUP_COLS_BLOCKS blocks (a few waves of the 528 that
// an H100 holds at 256 threads), or one group per run when the runs alone give that many.
#ifndef HEPA_MODUP_COLS_BLOCKS
#define HEPA_MODUP_COLS_BLOCKS 2048
#endif
template <int GB>
cudaError_t launch_modup_cols(const hepa_ring *ring, size_t count, size_t run, uint64_t *out,
                              const uint64_t *in, uint64_t *out_b, const uint64_t *in_b,
                              const uint32_t *map, const uint64_t *aux, cudaStream_t st,
                              bool pack) {
    if (run == 0 || count % run) return cudaErrorInvalidValue;
    const size_t runs = count / run, polys = out_b ? 2 : 1, tiles = 256 / 8;
    const size_t blocks = HEPA_MODUP_COLS_BLOCKS;
    const TargetGroups tg = target_groups(run, blocks, tiles * runs * polys);
    const size_t groups = tg.groups, G = tg.G;
    const size_t smem = ((size_t)8 << (GB + 3)) + (HEPA_TARGET_HEADS ? G * sizeof(Modup1Head) : 0);
    const dim3 grid((unsigned)tiles, (unsigned)(runs * groups * polys));
    return launch_k(false, ring, modup1_cols_kernel<GB>, grid, 1u << GB, smem, st, out, in, out_b,
                    in_b, (const uint64_t *)ring->dev->tables,
                    (const hepa_dev_limb *)ring->dev->limbs, (unsigned)ring->log_n, map, aux,
                    (unsigned)run, (unsigned)runs, (unsigned)groups, (unsigned)G, pack);
}

// Every modupn_cols_kernel launch goes with PDL: its blocks (which wait at their start unless
// `early`) are resident when the kernel before ends, the inverse NTT's column pass for ModUp and
// the P pair's for ModDown. Same call on an H200 (hepa-bench --ks, 2^16/33, three rounds, µs,
// without -> with, both with EARLY LAST DIGIT): hepa_mul_relin P = 3 496.8, 496.4, 497.7 ->
// 495.7, 494.2, 494.8; P = 2 590.7, 591.7, 591.7 -> 588.0, 588.1, 588.8; P = 1 and 4 (other
// kernels) within noise. (0: without PDL, except the early last digit, for A/Bs.)
#ifndef HEPA_MODUPN_PDL
#define HEPA_MODUPN_PDL 1
#endif
// modupn_cols_kernel for `digits` digits from j0 whose conversions have NS sources and nt
// targets each; groups as launch_modup_cols.
template <int GB, int NS>
cudaError_t launch_modupn_cols(const hepa_ring *ring, unsigned j0, unsigned digits, unsigned alpha,
                               unsigned run, unsigned nt, uint64_t *ext, const uint64_t *coef,
                               const uint32_t *map, const ModupnTabs &tabs, cudaStream_t st,
                               size_t blocks = HEPA_MODUP_COLS_BLOCKS, bool early = false) {
    const size_t tiles = 256 / 8;
    const TargetGroups tg = target_groups(nt, blocks, tiles * digits);
    const size_t groups = tg.groups, G = tg.G;
    const size_t smem = modupn_smem<GB, NS>(G);
    auto kern = modupn_cols_kernel<GB, NS>;
    // ONE LIMIT PER KERNEL: the attribute is the kernel's, shared by every host thread, so it is
    // set to the most any launch of it takes (G <= TARGET_HEADS), never to this launch's size:
    // with the launch's size, another thread could lower it between this thread's set and its
    // launch (threads_share_ring failed so, 2 runs of 12 beside other GPU processes on an H200:
    // cudaErrorInvalidValue from ModDown's launch, ModUp's G being larger)
    constexpr size_t smax = modupn_smem<GB, NS>(TARGET_HEADS);
    if (smem > smax) return cudaErrorInvalidValue;
    if (smax > 48 * 1024) {
        const cudaError_t e =
            cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smax);
        if (e != cudaSuccess) return e;
    }
    const dim3 grid((unsigned)tiles, (unsigned)(digits * groups));
    const bool pdl = early || HEPA_MODUPN_PDL;
    return launch_k(pdl, ring, kern, grid, 1u << GB, smem, st, ext, coef, tabs,
                    (const uint64_t *)ring->dev->tables, (const hepa_dev_limb *)ring->dev->limbs,
                    (unsigned)ring->log_n, map, j0, alpha, run, (unsigned)groups, (unsigned)G,
                    early);
}
template <int GB>
cudaError_t launch_modupn_cols_any(const hepa_ring *ring, unsigned ns, unsigned j0, unsigned digits,
                                   unsigned alpha, unsigned run, unsigned nt, uint64_t *ext,
                                   const uint64_t *coef, const uint32_t *map,
                                   const ModupnTabs &tabs, cudaStream_t st,
                                   size_t blocks = HEPA_MODUP_COLS_BLOCKS, bool early = false) {
    switch (ns) {
    case 1:
        return launch_modupn_cols<GB, 1>(ring, j0, digits, alpha, run, nt, ext, coef, map, tabs, st,
                                         blocks, early);
    case 2:
        return launch_modupn_cols<GB, 2>(ring, j0, digits, alpha, run, nt, ext, coef, map, tabs, st,
                                         blocks, early);
    case 3:
        return launch_modupn_cols<GB, 3>(ring, j0, digits, alpha, run, nt, ext, coef, map, tabs, st,
                                         blocks, early);
    case 4: // (HEPA_DEV_FUSED_CONV_MAX = 3 leaves it to MODDOWN RESCALE at K = 3)
        return launch_modupn_cols<GB, 4>(ring, j0, digits, alpha, run, nt, ext, coef, map, tabs, st,
                                         blocks, early);
    case 5: // (MODDOWN RESCALE at K = 4 only, HEPA_DEV_RESCALE_CONV_MAX: q_(l-1) and P)
        return launch_modupn_cols<GB, 5>(ring, j0, digits, alpha, run, nt, ext, coef, map, tabs, st,
                                         blocks, early);
    default:
        return cudaErrorInvalidValue;
    }
}

// The whole transform: out = NTT(in) (or INTT(in ⊙ in2) when FUSED); with out_b (forward
// only), also out_b = NTT(in_b) in the same launches. With a map (in place, not FUSED, no
// out_b), `level` entries of the map name the limbs and their moduli (same data limb in `in`
// and `out`). FX picks the forward fusions (XF of ntt_tile_kernel):
//   FX_RESCALE (n >= 2^13 only): the NTT-domain rescale of _hepa_dev_ntt_rescale, in = the one
//     coefficient-domain limb, in2 = a, out = the data between the passes, fin = the result (may
//     be out), aux = the level's rescale constants; a pair: in_b, fx.in2_b, out_b, fx.fin_b;
//   FX_ENCODE (n >= 2^10 only): every limb's input is m mod q, m = the n coefficients in `in`
//     (int64 or CKKS_BIG) and aux (the doubles where CKKS_BIG);
//   FX_MODUP1 (n >= 2^10 only, with a map): map entry y's input is the conversion of limb
//     aux[3y] of `in` (coefficient domain) to its modulus (XF 4 of ntt_tile_kernel);
//   FX_MODDOWN (n >= 2^13 only): key switching's ModDown for a pair, fin = (in2 - NTT(in))·s
//     (+ acc) and fx.fin_b = (fx.in2_b - NTT(in_b))·s (+ fx.acc_b), s per limb from fx.aux2 (XF
//     2, the rescale's layout); out / out_b hold the data between the passes (in place of in /
//     in_b is allowed), the last pass reads in2 and acc at each word before it writes fin there;
//     FX_MODDOWN1: the same where in / in_b are one coefficient-domain limb each (K = 1),
//     converted to each modulus as the first pass loads (XF 4 without a map: aux[3i ..] for
//     limb i).
//   FX_PACKCOLS (cols_only, n = 2^15 .. 2^17 with FP64 limbs): the column pass in place on
//     PACKED COLUMNS (XF 6), for key switching's ModUp with digits of 2 or more limbs.
enum { FX_NONE, FX_RESCALE, FX_ENCODE, FX_MODUP1, FX_MODDOWN, FX_MODDOWN1, FX_PACKCOLS };

// TWO PASSES IN ONE LAUNCH where it applies (n = 2^16 or 2^17, at most HEPA_DEV_SCHED_WORDS - 2
// limbs in the grid, the ring's own stream); returns false (nothing launched) otherwise.
#ifndef HEPA_NTT2
#define HEPA_NTT2 1
#endif
#ifndef HEPA_NTT2_F64_16
#define HEPA_NTT2_F64_16 0 // 1: also at 2^16 on rings with FP64 limbs (slower; for A/Bs)
#endif
#ifndef HEPA_NTT2_D
#define HEPA_NTT2_D 0 // the lag in limbs; 0: one wave of blocks' worth
#endif
template <bool INV>
bool launch_ntt2(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *in,
                 uint64_t *out_b, const uint64_t *in_b, const uint32_t *map, cudaError_t *err) {
    const int logn = (int)ring->log_n;
    const size_t Y = out_b ? 2 * level : level;
    const hepa_ring_device *d = ring->dev;
    // one wave of blocks in limbs: 4 blocks of 256 threads per SM at 2^16, 2 of 512 at 2^17
    const size_t wave = (size_t)d->sms * (logn == 16 ? 4 : 2) / 32;
    // Where it measured faster (H100, see TWO PASSES IN ONE LAUNCH): both directions at 2^17,
    // and at 2^16 on rings without FP64 limbs; at least two waves of limbs (fewer: nothing to
    // overlap)
    if (!HEPA_NTT2 || (logn != 16 && logn != 17) || Y < 2 * wave || Y > HEPA_DEV_SCHED_WORDS - 2 ||
        d->stream == d->helper || (!HEPA_NTT2_F64_16 && d->f64 && logn == 16))
        return false;
    auto go = [&](auto gb) {
        constexpr int GB1 = decltype(gb)::value;
        constexpr size_t T = (size_t)1 << GB1;
        // the larger of a column tile's and T / 32 rows' (the tile_body calls of ntt2_kernel)
        constexpr size_t cs = tile_smem_bytes(GB1, 3, 1, INV, false),
                         rs = tile_smem_bytes(8, 0, (int)(T / 32), INV, true),
                         smem = cs > rs ? cs : rs;
        auto kern = d->f64 ? ntt2_kernel<GB1, INV, true> : ntt2_kernel<GB1, INV, false>;
        // (48 KiB and more: with the kernel's static word it is over the default limit)
        if (smem >= 48 * 1024) {
            cudaError_t e =
                cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
            if (e != cudaSuccess) return e;
        }
        size_t D = HEPA_NTT2_D ? HEPA_NTT2_D : wave;
        if (D < 1) D = 1;
        if (D > Y) D = Y;
        return launch_k(true, ring, kern, dim3((unsigned)(Y * 64)), (unsigned)T, smem,
                        (cudaStream_t)d->stream, out, in, (const uint64_t *)d->tables,
                        (const hepa_dev_limb *)d->limbs, (unsigned)logn, out_b, in_b,
                        (unsigned)level, map, (unsigned)Y, (unsigned)D, d->sched);
    };
    *err = logn == 16 ? go(std::integral_constant<int, 8>{}) : go(std::integral_constant<int, 9>{});
    return true;
}
// run_ntt's operands of the fusions that take more than aux (FX_MODUP1, FX_MODDOWN*)
struct FxArgs {
    const uint64_t *aux2 = nullptr;                  // FX_MODDOWN*: the last pass's constants
    const uint64_t *in2_b = nullptr;                 // FX_MODDOWN*, FX_RESCALE: pair's 2nd in2
    uint64_t *fin_b = nullptr;                       // FX_MODDOWN*, FX_RESCALE: pair's 2nd output
    const uint64_t *acc = nullptr, *acc_b = nullptr; // FX_MODDOWN*: added as stored, or NULL
    // FX_MODDOWN* with mb: acc, acc_b, mb, mb_b are the tensor's a0, a1, b0, b1, and the adds
    // are its d0 = a0·b0 and d1 = a0·b1 + a1·b0 (XF 9)
    const uint64_t *mb = nullptr, *mb_b = nullptr;
    // FX_MODDOWN with mb: MODDOWN RESCALE (XF 11): the last pass's stores are scaled by
    // aux2[1 + 3i] (q_level^(-1) mod q_i, keyswitch.c)
    bool rescale = false;
    // FX_MODDOWN*: in2 / in2_b (t0 / t1) in PACKED Q LIMBS (XF 9 with mb, else XF 10), and the
    // pair between the passes in PACKED COLUMNS (the first pass stores them so: modup1_cols_kernel
    // for FX_MODDOWN1; XF 6, in place on the conversion's packed output, for FX_MODDOWN), where
    // ks_packed holds
    bool packed_t = false;
    size_t run = 0;                                  // FX_MODUP1: map entries per source limb
    // n >= 2^13: only the last pass (forward: the rows, after a cols_only call; inverse: the
    // columns, after ntt_mulrows_kernel)
    bool last_only = false;
    // FX_RESCALE, n = 2^13 .. 2^17: the column pass needs nothing from the grid before it
    // (EARLY RESCALE HALF); it is told so by in2 = in (XF 1's first pass reads no in2)
    bool early = false;
};
template <bool INV, bool FUSED, int FX = FX_NONE>
cudaError_t run_ntt(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *in,
                    const uint64_t *in2, uint64_t *out_b = nullptr, const uint64_t *in_b = nullptr,
                    const uint32_t *map = nullptr, uint64_t *fin = nullptr,
                    const uint64_t *aux = nullptr, bool cols_only = false,
                    const FxArgs &fx = FxArgs{}) {
    static_assert(FX == FX_NONE || (!INV && !FUSED), "the fusions are forward transforms");
    if (cols_only && (INV || ring->log_n < 13)) return cudaErrorInvalidValue;
    constexpr bool RESC = FX == FX_RESCALE;
    constexpr bool MDOWN = FX == FX_MODDOWN || FX == FX_MODDOWN1;
    const uint64_t *auxl = MDOWN ? fx.aux2 : aux; // the last pass's constants
    cudaStream_t st = (cudaStream_t)ring->dev->stream;
    const int logn = (int)ring->log_n;
    const size_t n = ring->n;
    const unsigned nn = (unsigned)n;
    if constexpr (RESC || MDOWN) {
        if (logn < 13) return cudaErrorInvalidValue;
    } else if ((FX == FX_ENCODE || FX == FX_MODUP1) && logn < 10) {
        return cudaErrorInvalidValue;
    } else if (logn <= 9) {
        dim3 grid(1, (unsigned)level);
        ntt_small_kernel<INV, FUSED><<<grid, (unsigned)(n / 2), n * sizeof(uint64_t), st>>>(
            out, in, in2, ring->dev->tables, ring->dev->limbs, logn, map);
        if (out_b)
            ntt_small_kernel<INV, FUSED><<<grid, (unsigned)(n / 2), n * sizeof(uint64_t), st>>>(
                out_b, in_b, in2, ring->dev->tables, ring->dev->limbs, logn, nullptr);
        return cudaGetLastError();
    }
    // XF1 / XF2: the fusions of the first / last forward pass (none otherwise)
    constexpr int XF1 = RESC                                   ? 1
                        : FX == FX_ENCODE                      ? 3
                        : FX == FX_MODUP1 || FX == FX_MODDOWN1 ? 4
                        : FX == FX_PACKCOLS                    ? 6
                                                               : 0;
    if (FX == FX_PACKCOLS && (!cols_only || logn < 15 || logn > 17)) return cudaErrorInvalidValue;
    constexpr int XF2 = RESC || MDOWN ? 2 : 0;
    if constexpr (!RESC && !MDOWN && FX != FX_PACKCOLS) switch (logn) {
        case 10:
            return launch_tile<10, 0, 0, 1, INV, FUSED, true, false, XF1>(
                out, in, in2, ring, level, nn, 1, st, out_b, in_b, map, 31, 0, aux);
        case 11:
            return launch_tile<11, 0, 0, 1, INV, FUSED, true, false, XF1>(
                out, in, in2, ring, level, nn, 1, st, out_b, in_b, map, 31, 0, aux);
        case 12:
            return launch_tile<12, 0, 0, 1, INV, FUSED, true, false, XF1>(
                out, in, in2, ring, level, nn, 1, st, out_b, in_b, map, 31, 0, aux);
        default:
            break;
        }
    // Rows: 256 contiguous elements (low 8 bits), 4 rows per block. Columns: the bits above,
    // tiles of 8 adjacent columns. Up to n = 2^17 the columns are one pass (top logn - 8 bits);
    // above, two: TOP = the top T bits (S = 8 + M) and MID = bits 8 .. 8 + M - 1 (S = 8), whose
    // tiles come in 2^T segments of 32 (one per value of the top bits, 2^(8+M) apart).
    const size_t rows = n >> 8, col_tiles = 256 / 8;
    cudaError_t e;
    if constexpr (FX == FX_NONE && !FUSED)
        if (!cols_only && !fx.last_only &&
            launch_ntt2<INV>(ring, level, out, in, out_b, in_b, map, &e))
            return e;
#define COLS(GB1, FUS, IN, IN2, LAST, INB, XF)                                                 \
    launch_tile<GB1, 3, 8, 1, INV, FUS, LAST, false, XF>(out, IN, IN2, ring, level, 8, col_tiles, \
                                                         st, out_b, INB, map, 31, 0, aux)
// clang-format off
#define ROWS(DST, FUS, IN, IN2, LAST, DSTB, INB, XF)                                               \
    (logn >= HEPA_NTT_STAGE_MIN_LOGN                                                               \
         ? launch_tile<8, 0, 0, 4, INV, FUS, LAST, true, XF>(                                      \
               DST, IN, IN2, ring, level, 256, rows, st, DSTB, INB, map, 31, 0, auxl, fx.in2_b,    \
               fx.acc, fx.acc_b, fx.mb, fx.mb_b)                                                   \
         : launch_tile<8, 0, 0, 4, INV, FUS, LAST, false, XF>(                                     \
               DST, IN, IN2, ring, level, 256, rows, st, DSTB, INB, map, 31, 0, auxl, fx.in2_b,    \
               fx.acc, fx.acc_b, fx.mb, fx.mb_b))
    // the forward column pass of n = 2^13 .. 2^17; XF 4's runs sharing a source (FX_MODUP1: of
    // `run` map entries; FX_MODDOWN1: all `level` limbs) in modup1_cols_kernel on rings with
    // FP64 limbs; FX_MODDOWN with packed_t: XF 6 on the conversion's PACKED COLUMNS (only n =
    // 2^15 .. 2^17, GB1 >= 7, pack: the XF argument keeps XF 6 kernels for smaller n unbuilt)
#define COLS1(GB1)                                                                                 \
    (XF1 == 4 && ring->dev->f64                                                                    \
         ? launch_modup_cols<GB1>(ring, level, map ? fx.run : level, out, in, out_b, in_b, map,    \
                                  aux, st,                                                         \
                                  ((FX == FX_MODUP1 && cols_only) ||                               \
                                   (FX == FX_MODDOWN1 && fx.packed_t)) && ks_packed(ring))         \
     : FX == FX_MODDOWN && GB1 >= 7 && fx.packed_t && ks_packed(ring)                              \
         ? COLS(GB1, false, in, nullptr, false, in_b, (GB1 >= 7 ? 6 : XF1))                        \
         : COLS(GB1, false, in, FX == FX_RESCALE && fx.early ? in : nullptr, false, in_b, XF1))
    // three passes, n = 2^18 .. 2^20 (T, M) = (5, 5), (6, 5), (6, 6)
// clang-format on
#define TOP(GBT, M, IN, LAST, INB, XF)                                                         \
    launch_tile<GBT, 3, 8 + M, 1, INV, false, LAST, false, XF>(                                \
        out, IN, nullptr, ring, level, 8, n >> (GBT + 3), st, out_b, INB, map, 31, 0, aux)
#define MID(M, IN, INB)                                                                        \
    launch_tile<M, 3, 8, 1, INV, false, false>(out, IN, nullptr, ring, level, 8,               \
                                               n >> (M + 3), st, out_b, INB, map, 5, 1u << (8 + M))
    // the column pass of a two-pass transform (n = 2^13 .. 2^17: tiles of log n - 8 bits), not
    // fused, from src (and src_b for a pair); last: std::bool_constant, xf: the XF, as types
    auto cols2 = [&](const uint64_t *src, const uint64_t *src_b, auto last,
                     auto xf) -> cudaError_t {
        constexpr bool L = decltype(last)::value;
        constexpr int X = decltype(xf)::value;
        switch (logn) {
        case 13:
            return COLS(5, false, src, nullptr, L, src_b, X);
        case 14:
            return COLS(6, false, src, nullptr, L, src_b, X);
        case 15:
            return COLS(7, false, src, nullptr, L, src_b, X);
        case 16:
            return COLS(8, false, src, nullptr, L, src_b, X);
        default:
            return COLS(9, false, src, nullptr, L, src_b, X);
        }
    };
    // FP64 INTERMEDIATE: the plain two-pass transforms of rings with FP64 limbs
    if constexpr (FX == FX_NONE && !FUSED) {
        if (HEPA_NTT_F64_MID && ring->dev->f64 && !cols_only && !fx.last_only && logn >= 13 &&
            logn <= 17) {
            constexpr std::integral_constant<int, 8> xf8{};
            if constexpr (!INV) {
                if ((e = cols2(in, in_b, std::false_type{}, xf8)) != cudaSuccess) return e;
                return ROWS(out, false, out, nullptr, true, out_b, out_b, 8);
            } else {
                if ((e = ROWS(out, false, in, nullptr, false, out_b, in_b, 8)) != cudaSuccess)
                    return e;
                return cols2(out, out_b, std::true_type{}, xf8);
            }
        }
    }
    if constexpr (!INV) {
        auto last_pass = [&]() {
            if constexpr (MDOWN) {
                if (fx.mb && fx.rescale)
                    return ROWS(fin, false, out, in2, true, fx.fin_b, out_b, 11);
                if (fx.mb) return ROWS(fin, false, out, in2, true, fx.fin_b, out_b, 9);
                if (fx.packed_t) return ROWS(fin, false, out, in2, true, fx.fin_b, out_b, 10);
            }
            return ROWS(RESC || MDOWN ? fin : out, false, out, RESC || MDOWN ? in2 : nullptr, true,
                        RESC || MDOWN ? fx.fin_b : out_b, out_b, XF2);
        };
        // the last pass alone (ModDown's second half after a cols_only call: dev_keyswitch)
        if (fx.last_only) return cols_only || logn < 13 ? cudaErrorInvalidValue : last_pass();
        switch (logn) { // columns first (top bits down), then rows
        case 13:
            e = COLS1(5);
            break;
        case 14:
            e = COLS1(6);
            break;
        case 15:
            e = COLS1(7);
            break;
        case 16:
            e = COLS1(8);
            break;
        case 17:
            e = COLS1(9);
            break;
        case 18:
            e = TOP(5, 5, in, false, in_b, XF1);
            if (e == cudaSuccess) e = MID(5, out, out_b);
            break;
        case 19:
            e = TOP(6, 5, in, false, in_b, XF1);
            if (e == cudaSuccess) e = MID(5, out, out_b);
            break;
        default:
            e = TOP(6, 6, in, false, in_b, XF1);
            if (e == cudaSuccess) e = MID(6, out, out_b);
            break;
        }
        if (e != cudaSuccess || cols_only) return e;
        return last_pass();
    } else {
        // rows first, then columns; a pair (no FUSED caller has one) reads in_b, then out_b
        if (fx.last_only) {
            if (logn < 13) return cudaErrorInvalidValue;
        } else if ((e = ROWS(out, FUSED, in, in2, false, out_b, in_b, 0)) != cudaSuccess) {
            return e;
        }
        if (logn <= 17)
            return cols2(out, out_b, std::true_type{}, std::integral_constant<int, 0>{});
        switch (logn) {
        case 18:
            e = MID(5, out, out_b);
            return e != cudaSuccess ? e : TOP(5, 5, out, true, out_b, 0);
        case 19:
            e = MID(5, out, out_b);
            return e != cudaSuccess ? e : TOP(6, 5, out, true, out_b, 0);
        default:
            e = MID(6, out, out_b);
            return e != cudaSuccess ? e : TOP(6, 6, out, true, out_b, 0);
        }
    }
#undef COLS
#undef COLS1
#undef ROWS
#undef TOP
#undef MID
}

// The negacyclic product out = INTT(NTT(a) ⊙ NTT(b)) (see _hepa_dev_ntt_mul). n = 2^13 .. 2^17:
// forward columns of the pair, FUSED PRODUCT ROWS, inverse columns (three launches, nine
// passes' worth of words); other n (and HEPA_NTT_MULROWS=0, kept for A/B runs): the forward pair
// and the inverse with the product fused into its first pass.
#ifndef HEPA_NTT_MULROWS
#define HEPA_NTT_MULROWS 1
#endif
cudaError_t run_mul(const hepa_ring *ring, size_t level, uint64_t *out, const uint64_t *a,
                    const uint64_t *b, uint64_t *fa, uint64_t *fb) {
    const bool square = a == b && fa == fb;
    const int logn = (int)ring->log_n;
    cudaError_t e;
    if (!HEPA_NTT_MULROWS || logn < 13 || logn > 17) {
        e = square ? run_ntt<false, false>(ring, level, fa, a, nullptr)
                   : run_ntt<false, false>(ring, level, fa, a, nullptr, fb, b);
        return e != cudaSuccess ? e : run_ntt<true, true>(ring, level, out, fa, fb);
    }
    e = square ? run_ntt<false, false>(ring, level, fa, a, nullptr, nullptr, nullptr, nullptr,
                                       nullptr, nullptr, true)
               : run_ntt<false, false>(ring, level, fa, a, nullptr, fb, b, nullptr, nullptr,
                                       nullptr, true);
    if (e != cudaSuccess) return e;
    const bool stg = logn >= HEPA_NTT_STAGE_MIN_LOGN;
    bool any_int = !ring->dev->f64; // a limb on the integer path (FP64 LIMBS)
    for (size_t i = 0; i < level && !any_int; ++i)
        any_int = ring->moduli[i] >= HEPA_DEV_F64_BELOW;
    const unsigned W = mulrows_words(stg, any_int);
    const size_t smem = (size_t)8 * 4 * (256 + W); // see FUSED PRODUCT ROWS
    auto kern =
        stg ? (ring->dev->f64 ? ntt_mulrows_kernel<true, true> : ntt_mulrows_kernel<true, false>)
            : (ring->dev->f64 ? ntt_mulrows_kernel<false, true> : ntt_mulrows_kernel<false, false>);
    const dim3 grid((unsigned)((ring->n >> 8) / 4), (unsigned)level);
    e = launch_k(true, ring, kern, grid, 128, smem, (cudaStream_t)ring->dev->stream, out,
                 (const uint64_t *)fa, (const uint64_t *)fb, (const uint64_t *)ring->dev->tables,
                 (const hepa_dev_limb *)ring->dev->limbs, (unsigned)logn, W);
    if (e != cudaSuccess) return e;
    FxArgs fx;
    fx.last_only = true;
    return run_ntt<true, false>(ring, level, out, out, nullptr, nullptr, nullptr, nullptr, nullptr,
                                nullptr, false, fx);
}

} // namespace hepa_ntt_cuda
using namespace hepa_ntt_cuda;

extern "C" hepa_status _hepa_dev_ntt_forward(const hepa_ring *ring, size_t level, uint64_t *out,
                                             const uint64_t *in) {
    return _hepa_dev_status(run_ntt<false, false>(ring, level, out, in, nullptr), "NTT forward");
}

extern "C" hepa_status _hepa_dev_ntt_inverse(const hepa_ring *ring, size_t level, uint64_t *out,
                                             const uint64_t *in) {
    return _hepa_dev_status(run_ntt<true, false>(ring, level, out, in, nullptr), "NTT inverse");
}

extern "C" hepa_status _hepa_dev_ntt_forward2(const hepa_ring *ring, size_t level, uint64_t *out_a,
                                              const uint64_t *in_a, uint64_t *out_b,
                                              const uint64_t *in_b) {
    return _hepa_dev_status(run_ntt<false, false>(ring, level, out_a, in_a, nullptr, out_b, in_b),
                            "NTT forward (pair)");
}

extern "C" hepa_status _hepa_dev_ntt_map(const hepa_ring *ring, int inverse, uint64_t *out,
                                         const uint64_t *in, const uint32_t *map, size_t count) {
    if (count == 0) return HEPA_OK;
    const cudaError_t e = inverse ? run_ntt<true, false>(ring, count, out, in, nullptr, nullptr,
                                                         nullptr, map)
                                  : run_ntt<false, false>(ring, count, out, in, nullptr, nullptr,
                                                          nullptr, map);
    return _hepa_dev_status(e, "NTT (mapped limbs)");
}

extern "C" hepa_status _hepa_dev_ntt_mul(const hepa_ring *ring, size_t level, uint64_t *out,
                                         const uint64_t *a, const uint64_t *b, uint64_t *fa,
                                         uint64_t *fb) {
    return _hepa_dev_status(run_mul(ring, level, out, a, b, fa, fb), "negacyclic product");
}

// The NTT-domain rescale (see device/internal.h): the inverse NTT of the last limb (of both
// polynomials of a pair in the same launches), then the forward NTT of the level - 1 corrections
// with the correction computed in the first pass's loads and the subtract-and-scale in the last
// pass's stores. Against the unfused path (correction kernel, NTT, subtract-scale kernel) it saves
// writing the corrections, reading level - 1 limbs in the first pass, and a full read-read-write
// pass at the end. A pair shares the launches (the forward NTT's: but see RESCALE SPLIT): the last
// limbs' inverse NTT (2 limbs) runs in the time of one, its passes being too small to fill the
// GPU (64 and 32 blocks at 2^16).
// RESCALE SPLIT: where the pair's data between the passes, 2·(level - 1)·n words, is over half
// the L2 cache and one polynomial's is not, the forward NTTs run one polynomial after the other
// (two launches each) instead of sharing launches. Shared, the column pass at 2^16/33 wrote
// 33.5 MB before the row pass read it back, most of it from DRAM (ncu: 63 MB read by the shared
// row pass); one polynomial's 16.8 MB stays in L2. H100 (50 MiB L2), hepa-bench --ks, same call,
// 2 runs x 4 medians each, µs per ciphertext: 2^16/33 79.9-81.6 -> 77.2-78.7. Where both fit
// or neither does, sharing wins: 2^15/17 (8.4 MB) 23.8-25.1 shared, 32.5-32.8 split (launches
// half as large, latency-bound); 2^17/61 (one polynomial 63 MB) 243.5-244.2 shared, 256 split.
#ifndef HEPA_RESCALE_SPLIT
#define HEPA_RESCALE_SPLIT 1
#endif
// EARLY RESCALE HALF (split only; 0: the second column pass waits at its start like the others,
// for A/Bs). H200, hepa-bench --ks --n 65536 (2^16/33, the rescale row of its four sections),
// same call, three rounds, 12 medians each: 62.4-64.7 µs (most 63.0-63.4) -> 60.4-62.6 (most
// 60.8-61.7); predicted 2-4 µs.
#ifndef HEPA_RESCALE_EARLY
#define HEPA_RESCALE_EARLY 1
#endif
extern "C" hepa_status _hepa_dev_ntt_rescale(const hepa_ring *ring, size_t level, uint64_t *out0,
                                             const uint64_t *a0, uint64_t *out1, const uint64_t *a1,
                                             uint64_t *last) {
    if (ring->log_n < 13 || level < 2) return HEPA_ERR_UNSUPPORTED;
    const size_t n = ring->n;
    uint64_t *last1 = out1 ? last + n : nullptr;
    // map entry 0 (data limb 0, modulus level - 1) for both halves of a pair
    cudaError_t e =
        run_ntt<true, false>(ring, 1, last, a0 + (level - 1) * n, nullptr, last1,
                             out1 ? a1 + (level - 1) * n : nullptr, ring->dev->idmap + level - 1);
    if (e != cudaSuccess) return _hepa_dev_status(e, "NTT-domain rescale (inverse NTT)");
    const uint64_t *aux = ring->dev->rescale + (level - 1) * (1 + 3 * ring->num_moduli);
    const size_t half_l2 = (size_t)ring->dev->l2 / 2, one = (level - 1) * n * sizeof(uint64_t);
    if (HEPA_RESCALE_SPLIT && out1 && 2 * one > half_l2 && one <= half_l2) {
        e = run_ntt<false, false, FX_RESCALE>(ring, level - 1, out0, last, a0, nullptr, nullptr,
                                              nullptr, out0, aux);
        // EARLY RESCALE HALF: the second polynomial's column pass reads only last1, which the
        // inverse NTT wrote two grids before (the first polynomial's row pass waited for its
        // column pass, which waited for that NTT), and writes only out1, which the first
        // polynomial's row pass neither reads nor writes (out1 is a buffer of its own, at another
        // level than a0 and a1). So its blocks start without waiting, in the slots that the row
        // pass's last wave frees.
        FxArgs fx;
        fx.early = HEPA_RESCALE_EARLY;
        if (e == cudaSuccess)
            e = run_ntt<false, false, FX_RESCALE>(ring, level - 1, out1, last1, a1, nullptr,
                                                  nullptr, nullptr, out1, aux, false, fx);
        return _hepa_dev_status(e, "NTT-domain rescale");
    }
    FxArgs fx;
    fx.in2_b = a1;
    fx.fin_b = out1;
    // out0 / out1 hold the pass in between (the row pass reads each tile before writing it)
    return _hepa_dev_status(run_ntt<false, false, FX_RESCALE>(ring, level - 1, out0, last, a0, out1,
                                                              last1, nullptr, out0, aux, false, fx),
                            "NTT-domain rescale");
}

// CKKS encode's NTT (see device/internal.h): the rounded coefficients are read once per limb from
// one buffer of n int64 words (L2-resident) by the first pass instead of being written and read
// back as level·n words.
extern "C" hepa_status _hepa_dev_ntt_encode(const hepa_ring *ring, size_t level, uint64_t *out,
                                            const int64_t *m, const double *big) {
    if (ring->log_n < 10) return HEPA_ERR_UNSUPPORTED;
    return _hepa_dev_status(run_ntt<false, false, FX_ENCODE>(ring, level, out, (const uint64_t *)m,
                                                             nullptr, nullptr, nullptr, nullptr,
                                                             nullptr, (const uint64_t *)big),
                            "NTT of a CKKS encoding");
}

// Key switching's ModUp for one-limb digits (see device/internal.h): the conversion of each digit
// to the other moduli is computed by the first NTT pass as it loads, so the count·n converted
// words are never written and read back.
extern "C" hepa_status _hepa_dev_ntt_modup1(const hepa_ring *ring, size_t count, size_t run,
                                            uint64_t *ext, const uint64_t *coef,
                                            const uint32_t *map, const uint64_t *aux) {
    if (ring->log_n < 10) return HEPA_ERR_UNSUPPORTED;
    if (count == 0) return HEPA_OK;
    FxArgs fx;
    fx.run = run;
    return _hepa_dev_status(run_ntt<false, false, FX_MODUP1>(ring, count, ext, coef, nullptr,
                                                             nullptr, nullptr, map, nullptr, aux,
                                                             false, fx),
                            "ModUp NTT");
}

// Key switching's ModUp and inner product fused (see device/internal.h and ks_rows_inner_kernel).
extern "C" hepa_status _hepa_dev_ntt_modup_cols(const hepa_ring *ring, size_t count, size_t run,
                                                uint64_t *ext, const uint64_t *coef,
                                                const uint32_t *map, const uint64_t *aux) {
    if (ring->log_n < 13) return HEPA_ERR_UNSUPPORTED;
    if (count == 0) return HEPA_OK;
    FxArgs fx;
    fx.run = run;
    const cudaError_t e =
        aux ? run_ntt<false, false, FX_MODUP1>(ring, count, ext, coef, nullptr, nullptr, nullptr,
                                               map, nullptr, aux, true, fx)
        : ks_packed(ring)
            ? run_ntt<false, false, FX_PACKCOLS>(ring, count, ext, ext, nullptr, nullptr, nullptr,
                                                 map, nullptr, nullptr, true)
            : run_ntt<false, false>(ring, count, ext, ext, nullptr, nullptr, nullptr, map, nullptr,
                                    nullptr, true);
    return _hepa_dev_status(e, "ModUp NTT (passes before the last)");
}

// launch_modupn_cols_any for the ring's n (2^15 .. 2^17: ks_packed), on the ring's stream
static cudaError_t launch_modupn_cols_n(const hepa_ring *ring, unsigned ns, unsigned j0,
                                        unsigned digits, unsigned alpha, unsigned run, unsigned nt,
                                        uint64_t *ext, const uint64_t *coef, const uint32_t *map,
                                        const ModupnTabs &tabs, size_t blocks,
                                        bool early = false) {
    cudaStream_t st = (cudaStream_t)ring->dev->stream;
    switch (ring->log_n) {
    case 15:
        return launch_modupn_cols_any<7>(ring, ns, j0, digits, alpha, run, nt, ext, coef, map, tabs,
                                         st, blocks, early);
    case 16:
        return launch_modupn_cols_any<8>(ring, ns, j0, digits, alpha, run, nt, ext, coef, map, tabs,
                                         st, blocks, early);
    default:
        return launch_modupn_cols_any<9>(ring, ns, j0, digits, alpha, run, nt, ext, coef, map, tabs,
                                         st, blocks, early);
    }
}

// EARLY LAST DIGIT. A last digit shorter than alpha (level % alpha limbs: one at 2^16/33 with
// alpha 2) has a launch of its own after the full digits', and nothing in it depends on theirs:
// both read only the inverse NTT's output, which the first launch waited for, and write disjoint
// targets. So it is launched with PDL and its blocks do not wait at their start: it becomes
// resident once every block of the full digits' launch has started (they trigger at their top)
// and fills the slots their last wave frees. One block (0, 0) runs the wait at its end, so this
// grid does not complete before the full digits' one has, and the next kernel's wait (the Q
// limbs' fused row pass) still covers both. (0: it waits at its start like the others, for A/Bs.)
#ifndef HEPA_MODUPN_EARLY
#define HEPA_MODUPN_EARLY 1
#endif
extern "C" hepa_status _hepa_dev_ntt_modupn_cols(const hepa_ring *ring, size_t level, size_t E,
                                                 size_t alpha, uint64_t *ext, const uint64_t *coef,
                                                 const uint32_t *map, const uint64_t *const *tabs) {
    const size_t dn = (level + alpha - 1) / alpha;
    if (!ks_packed(ring) || alpha < 2 || alpha > HEPA_DEV_FUSED_CONV_MAX || level == 0 ||
        dn > HEPA_CONV_MAX_JOBS || E <= level)
        return HEPA_ERR_UNSUPPORTED;
    ModupnTabs tb{};
    for (size_t j = 0; j < dn; ++j)
        tb.t[j] = tabs[j];
    const unsigned full = (unsigned)(level / alpha), last = (unsigned)(level % alpha);
    const unsigned run = (unsigned)(E - alpha), a = (unsigned)alpha;
    cudaError_t e = cudaSuccess;
    if (full)
        e = launch_modupn_cols_n(ring, a, 0, full, a, run, run, ext, coef, map, tb,
                                 HEPA_MODUP_COLS_BLOCKS);
    if (e == cudaSuccess && last)
        e = launch_modupn_cols_n(ring, last, full, 1, a, run, (unsigned)(E - last), ext, coef, map,
                                 tb, HEPA_MODUP_COLS_BLOCKS, HEPA_MODUPN_EARLY && full);
    return _hepa_dev_status(e, "ModUp conversion + column pass");
}

extern "C" int _hepa_dev_ks_packed(const hepa_ring *ring) {
    return ks_packed(ring);
}

// MODDOWN CONVERSION IN THE COLUMN PASS (K = 2 .. 4): modupn_cols_kernel with the pair's two
// polynomials as its digits (its `alpha` is the digits' source stride in limbs: E here), in place
// of the conversion kernel (one pair of coefficients per thread, 20% occupancy) writing the
// targets and the column pass reading them back. It runs on the helper stream beside the Q
// limbs' fused row pass, where each block takes away from that pass: a grid of about
// HEPA_MODDOWN_COLS_BLOCKS blocks (256 at 2^16/33: 9 targets per block) was the best of those
// measured. H100, same call, two rounds, hepa_mul_relin / rotate µs at 2^16/33 (conversion
// kernel -> fused with 2048 / 1024 / 512 blocks): P = 3 586.0, 586.3 -> 585.9, 587.2 / 582.6,
// 582.6 / 576.1, 576.8 and rotate 568.9, 567.1 -> 567.1, 569.6 / 565.3, 565.0 / 560.3, 558.4;
// P = 2 697.8, 700.8 -> 699.4, 698.3 / 696.0, 696.6 / 690.3, 690.8 and rotate 683.0, 681.2 ->
// 683.3, 682.8 / 679.0, 680.2 / 675.1, 672.9. (Without the helper chain's conversion at all, an
// experiment with wrong results, P = 3 took 559 µs; without its whole first part, 507.)
// Then fewer (548c079, two calls, two rounds each, hepa_mul_relin µs; 256 asks 4 groups of 9
// targets: 256 blocks): P = 3 512: 576.0, 576.0, 575.1, 575.8 -> 256: 571.8, 573.0, 571.5,
// 572.0, 192: 576.0, 576.6, 128: 585.7, 585.1, 64: 649.9, 648.9; P = 2 512: 690.0, 690.2,
// 693.6, 689.2 -> 256: 681.4, 682.0, 683.1, 682.7, 192: 689.2, 128: 740.7, 64: 881.5. Each
// block that runs beside the Q rows takes a row block's place there; below 256 the chain
// itself becomes the longer path. (Timeline at P = 3, cudaEvents on both streams, 512: the P
// rows end 98 µs after the fork, ModDown's inverse NTT 40 µs later, this pass 92 µs after
// that, 5 µs before the Q rows, which alone end 73 µs sooner.) K = 4 fused the same way
// (modupn_cols_kernel<GB, 4>, 80 KiB, 2 blocks per SM) measured 599.0, 600.2 µs with 512
// blocks, 592.4, 591.3 with 256 and 587.1, 588.7 with 192, against 588.3 to 591.7 for the
// conversion kernel and XF 6: within noise. Re-measured with HEPA_DEV_FUSED_CONV_MAX = 4 (H200,
// three rounds, 256 blocks), ModDown alone 113.8-114.6 -> 114.0 µs: still within noise; K = 4
// goes fused (one route for K = 2 .. 4, and no conversion kernel launch).
// K = 4 takes fewer (HEPA_MODDOWN_COLS_BLOCKS_K4): since its conversion moved into this pass
// (5368eb7) its chain ends before the Q rows (H100 timeline at 7c3fac1: 418 against 432 µs,
// bench/results/2026-12-06-h100-ks-timeline-7c3fac1.md), so there the slots its blocks take
// from the Q rows count, not its length. H100, same call, a run-time override of the K = 4
// grid, two rounds, hepa_mul_relin µs at 2^16/33/4: 256 525.5, 525.2; 192 519.4, 520.7; 160
// 521.5, 520.9; 128 520.1, 520.3 (K = 3, not overridden, 531.2-532.6 throughout). I had predicted
// a few µs. test_gpu_rns's keyswitch tests passed with 192 (5/5). The committed build, in a
// later call: 522.5-522.9 µs (bench/results/2026-12-06-h100-head-9a8131e.md).
#ifndef HEPA_MODDOWN_COLS_BLOCKS
#define HEPA_MODDOWN_COLS_BLOCKS 256
#endif
#ifndef HEPA_MODDOWN_COLS_BLOCKS_K4
#define HEPA_MODDOWN_COLS_BLOCKS_K4 192
#endif
extern "C" hepa_status _hepa_dev_ntt_moddownn_cols(const hepa_ring *ring, size_t level, size_t K,
                                                   uint64_t *mid, const uint64_t *coef,
                                                   const uint32_t *map, const uint64_t *tab) {
    if (!ks_packed(ring) || K < 2 || K > HEPA_DEV_RESCALE_CONV_MAX || level == 0)
        return HEPA_ERR_UNSUPPORTED;
    ModupnTabs tb{};
    tb.t[0] = tb.t[1] = tab;
    const unsigned l = (unsigned)level;
    const cudaError_t e =
        launch_modupn_cols_n(ring, (unsigned)K, 0, 2, (unsigned)(level + K), l, l, mid, coef, map,
                             tb, K >= 4 ? HEPA_MODDOWN_COLS_BLOCKS_K4 : HEPA_MODDOWN_COLS_BLOCKS);
    return _hepa_dev_status(e, "ModDown conversion + column pass");
}

#ifndef HEPA_KS_SPLIT
#define HEPA_KS_SPLIT 1 // DIGIT SPLIT: 0 never, 1 below two waves of blocks, 2 always (A/B)
#endif
extern "C" hepa_status _hepa_dev_ks_rows_inner(const hepa_ring *ring, size_t level, size_t K,
                                               size_t alpha, size_t dnum, uint64_t *t0,
                                               uint64_t *t1, const uint64_t *ext, const uint64_t *c,
                                               const unsigned char *key, size_t comp,
                                               uint64_t packed, size_t i0, size_t ni, int pack_q,
                                               int last_first, int pdl) {
    if (ring->log_n < 13) return HEPA_ERR_UNSUPPORTED;
    const size_t n = ring->n, E = level + K;
    if (i0 >= E || ni == 0 || ni > E - i0) return HEPA_ERR_INVALID_ARGUMENT;
    // DIGIT SPLIT (ks_rows_inner_kernel) where four rows a block make less than two waves (3
    // blocks an SM): a block's time is its digit loop, dnum row passes one after another, so
    // with few blocks SMs sit idle for most of it; four warps on one row with a quarter of the
    // digits each cut that chain to dnum / 4 passes. At 2^13/4/1 the unsplit grid was 40 blocks
    // and this kernel the longest of the key switch (17.3 of 71 µs under ncu). H200, same call,
    // two rounds, hepa_mul_relin µs, unsplit -> split: 2^13/4/1 57.3, 57.1 -> 46.3, 45.7;
    // 2^14/8/1 86.4, 86.5 -> 71.3, 71.9; 2^15/17/1 (576 blocks, 1.45 waves) 192.8, 192.9 ->
    // 186.2, 186.8; 2^16/33 (P = 1..4, not split) unchanged. Split at every size (the first,
    // run-time form, built with HEPA_KS_SPLIT=2): 2^16/33 P = 1 843 -> 876, P = 3 495 -> 548 µs.
    // Decided on all E rows of limbs, not this launch's ni: key switching launches the K special
    // primes' rows on its helper stream beside the others (keyswitch.c), and splitting those
    // few blocks measured 4-11 µs slower at 2^16/33 (H200).
    const bool split = dnum >= 2 && (HEPA_KS_SPLIT == 2 ||
                                     (HEPA_KS_SPLIT == 1 && (n >> 10) * E < 6 * ring->dev->sms));
    const dim3 grid((unsigned)(split ? n >> 8 : n >> 10), (unsigned)ni);
    const size_t smem = (size_t)KS_ROWS_SMEM_WORDS * sizeof(uint64_t);
    // FP64 rows from n = 2^16: measured on an H100 (hepa-bench --ks, multiply + relinearize, two
    // A/B runs against the integer rows): 2^16/33/P=1 1537, 1536 -> 1451, 1444 µs; P=2 1312,
    // 1309 -> 1296, 1292; P=3, P=4 unchanged; 2^17/61/1 9559 -> 8799, 8790; but 2^15/17/1 302,
    // 300 -> 315, 315 (not understood; that size keeps the integer rows). Measured again at
    // b3ce19f (FP64 choice once per block, double twiddles): 2^15/17/1 275.0, 275.3 µs with the
    // integer rows, 278.4, 277.7 with FP64 rows (a build that launched them from 2^13).
    // PACKED COLUMNS where _hepa_dev_ntt_modup_cols left them (ks_packed), in a build of
    // its own (the packed reads made ptxas spill about 30 bytes, which cost the
    // unpacked shapes 4-8 µs when they shared it). At 2^15 the packed columns make the FP64 rows
    // pay: with PACKED KEYS, 2^15/17/1 multiply + relinearize 263 µs with the integer rows and
    // unpacked columns, 244-248 with both (eed74fe, H100).
    auto pick = [&](auto sp) {
        constexpr bool SP = decltype(sp)::value; // DIGIT SPLIT
        return ks_packed(ring)                       ? ks_rows_inner_kernel<true, true, SP>
               : ring->dev->f64 && ring->log_n >= 16 ? ks_rows_inner_kernel<true, false, SP>
                                                     : ks_rows_inner_kernel<false, false, SP>;
    };
    auto *k = split ? pick(std::true_type{}) : pick(std::false_type{});
    cudaError_t ce = cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem);
    if (ce != cudaSuccess) return _hepa_dev_status(ce, "key-switch row pass (shared memory)");
    ce = launch_k(pdl != 0, ring, k, grid, 128, smem, (cudaStream_t)ring->dev->stream, t0, t1, ext,
                  c, key, (const uint64_t *)ring->dev->tables,
                  (const hepa_dev_limb *)ring->dev->limbs, (unsigned)ring->log_n, (unsigned)level,
                  (unsigned)(ring->num_moduli - K), (unsigned)E, (unsigned)dnum, (unsigned)alpha,
                  comp, packed, (unsigned)i0, pack_q != 0, last_first != 0);
    return _hepa_dev_status(ce, "key-switch ModUp row pass + inner product");
}

// Key switching's ModDown NTT (see device/internal.h): forward NTT of the pair (y0, y1) with the
// subtract-and-scale in its last pass and, for K = 1 (conv_aux), the conversion from P in its
// first.
extern "C" hepa_status _hepa_dev_ntt_moddown(const hepa_ring *ring, size_t level, uint64_t *out0,
                                             uint64_t *out1, uint64_t *mid, const uint64_t *t0,
                                             const uint64_t *t1, const uint64_t *y0,
                                             const uint64_t *y1, const uint64_t *conv_aux,
                                             const uint64_t *scale_aux, const uint64_t *add0,
                                             const uint64_t *add1, const hepa_tensor_in *tens,
                                             int packed_t, int phase, int rescale) {
    if (ring->log_n < 13) return HEPA_ERR_UNSUPPORTED;
    if (phase < 0 || phase > 2) return HEPA_ERR_INVALID_ARGUMENT;
    if (tens && (add0 || add1 || !packed_t)) return HEPA_ERR_INVALID_ARGUMENT;
    if (rescale && (!tens || conv_aux)) return HEPA_ERR_INVALID_ARGUMENT;
    FxArgs fx;
    fx.packed_t = packed_t != 0;
    fx.rescale = rescale != 0;
    fx.last_only = phase == 2;
    const bool first_only = phase == 1;
    fx.aux2 = scale_aux, fx.in2_b = t1, fx.fin_b = out1, fx.acc = add0, fx.acc_b = add1;
    if (tens) fx.acc = tens->a0, fx.acc_b = tens->a1, fx.mb = tens->b0, fx.mb_b = tens->b1;
    uint64_t *mid1 = mid + level * ring->n;
    const cudaError_t e =
        conv_aux ? run_ntt<false, false, FX_MODDOWN1>(ring, level, mid, y0, t0, mid1, y1, nullptr,
                                                      out0, conv_aux, first_only, fx)
                 : run_ntt<false, false, FX_MODDOWN>(ring, level, mid, y0, t0, mid1, y1, nullptr,
                                                     out0, nullptr, first_only, fx);
    return _hepa_dev_status(e, "ModDown NTT");
}
