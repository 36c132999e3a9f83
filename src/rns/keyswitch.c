/* src/rns/keyswitch.c — hepa/keyswitch.h: the context (conversion tables and NTT maps of every
 * level, built once), key generation through the public polynomial operations, and ModUp /
 * inner product / ModDown on the host (reference) or the device (kernels in rns_cuda.cu). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "hepa/keyswitch.h"
#include "hepa/rns.h"
#include "host/env.h"
#include "ntt/internal.h"
#include "rns/conv_core.h"
#include "rns/internal.h"
#include "rns/ksk_layout.h"

struct hepa_ks {
    const hepa_ring *ring;
    size_t L, K, alpha;
    size_t *up_tab;   /* [(L+1)·dmax]: word offset of the ModUp table of (level, digit) */
    size_t *down_tab; /* [L+1]: word offset of the ModDown table of a level */
    size_t *up_map;   /* [L+1]: offset into maps of the ModUp NTT map of a level; its length */
    size_t *up_map_len;
    size_t *p_map;    /* [L+1]: offset of the map of a level's K P limbs, then K more for the
                       * same limbs E·n words further (t1 after t0: ModDown's pair in one launch),
                       * then 2l for ModDown's targets (data limb p·l + i of the pair between its
                       * passes, modulus i; _hepa_dev_ntt_moddownn_cols) */
    /* MODDOWN RESCALE (hepa_mul_relin_rescale), levels l >= 2: rs_tab[l] the word offset of the
     * conversion table from q_(l-1), p_0 .. p_(K-1) (t's last K + 1 limbs, in that order) to
     * q_0 .. q_(l-2); rs_map[l] the offset of its maps: 2K + 2 entries for the inverse NTT of
     * those limbs of t0 then t1 (t1 = t0 + (l + K)·n), then 2(l - 1) for the targets (data limb
     * p·(l - 1) + i, modulus i: _hepa_dev_ntt_moddownn_cols at level l - 1) */
    size_t *rs_tab, *rs_map;
    uint64_t *tabs;   /* host tables, tabs_words */
    uint32_t *maps;   /* host maps, maps_len */
    size_t tabs_words, maps_len, dmax;
    uint64_t pmod[HEPA_RING_MAX_MODULI]; /* P mod q_i (the gadget's factor in the keys) */
    uint64_t pinv[HEPA_RING_MAX_MODULI], pinv_sh[HEPA_RING_MAX_MODULI]; /* P^(-1) mod q_i */
    uint64_t *dtabs;  /* device copies (CUDA backend) */
    uint32_t *dmaps;
    /* alpha = 1 on the CUDA backend: for every ModUp map entry, (source limb, q_src mod q,
     * 1/q_src as double bits), read from the digit's conversion table, so the NTT's first pass
     * can do the conversion as it loads (_hepa_dev_ks_modup1); 3·maps_len words, else NULL */
    uint64_t *aux, *daux;
    /* CUDA backend: ModDown's constants for _hepa_dev_ntt_moddown, 1 + 3L words (P^(-1) mod q_i
     * and its Shoup companion at 2 + 3i, 3 + 3i) then, when K = 1, 3L words (0, P mod q_i, 1/P
     * as double bits, from the conversion table) */
    uint64_t *ddown;
    /* CUDA backend, MODDOWN RESCALE: per level l (at + (l - 2)·(1 + 3L) words, l >= 2) ModDown's
     * constants as in ddown plus q_(l-1)^(-1) mod q_i at 1 + 3i, i < l - 1 */
    uint64_t *drs;
    struct ks_graph *graph; /* CUDA backend: KS GRAPH's cache (keyswitch_run), from first use */
};

/* KS GRAPH (keyswitch_run): exec[s·(L + 1) + l] the last executable graph of call shape s (0
 * plain, 1 with the tensor, 2 with the tensor and the rescale) at level l (one per level: a CKKS
 * program changes level between calls, and an update across levels fails where the launches
 * differ, as the digits' do); the scratch the graphs use (words, device); the capture view
 * (_hepa_dev_view_create); busy: 1 while a thread uses the cache (others meanwhile run
 * eagerly). */
struct ks_graph {
    atomic_int busy;
    void **exec;
    uint64_t *buf;
    size_t words;
    hepa_ring_device *view;
};

struct hepa_ksk {
    const hepa_ks *ks;
    size_t dnum;         /* dnum(L) */
    uint64_t packed;     /* bit m: modulus m's limbs in 5-byte words (PACKED KEYS, ksk_layout.h) */
    size_t comp;         /* bytes of one component (a digit's b or a) */
    unsigned char *data; /* 2 · dnum components, backend memory */
    int seeded;          /* the a_j come from the ChaCha20 stream of `seed` (SEEDED KEYS) */
    uint8_t seed[32];
};

static int on_device(const hepa_ring *r) { return r->backend == HEPA_BACKEND_CUDA; }
static size_t dnum_of(const hepa_ks *ks, size_t l) { return (l + ks->alpha - 1) / ks->alpha; }
/* ring modulus index of extended limb e at level l */
static size_t ext_mod(const hepa_ks *ks, size_t l, size_t e) { return e < l ? e : ks->L + e - l; }

void hepa_ks_destroy(hepa_ks *ks) {
    if (!ks) return;
    if (ks->dtabs) _hepa_dev_free(ks->ring, ks->dtabs);
    if (ks->dmaps) _hepa_dev_free(ks->ring, ks->dmaps);
    if (ks->daux) _hepa_dev_free(ks->ring, ks->daux);
    if (ks->ddown) _hepa_dev_free(ks->ring, ks->ddown);
    if (ks->drs) _hepa_dev_free(ks->ring, ks->drs);
    if (ks->graph) {
        for (size_t k = 0; ks->graph->exec && k < 3 * (ks->L + 1); ++k)
            _hepa_dev_graph_free(ks->graph->exec[k]);
        free(ks->graph->exec);
        _hepa_dev_free(ks->ring, ks->graph->buf);
        _hepa_dev_view_destroy(ks->graph->view);
        free(ks->graph);
    }
    free(ks->aux), free(ks->rs_tab), free(ks->rs_map);
    free(ks->up_tab), free(ks->down_tab), free(ks->up_map), free(ks->up_map_len);
    free(ks->p_map), free(ks->tabs), free(ks->maps);
    free(ks);
}

/* Two sweeps over the levels: the first (tabs == NULL) counts words and map entries, the
 * second fills them. */
static void build_levels(hepa_ks *ks) {
    const hepa_ring *r = ks->ring;
    const size_t L = ks->L, K = ks->K, a = ks->alpha;
    size_t tw = 0, mw = 0;
    size_t src[HEPA_RING_MAX_MODULI], dst[HEPA_RING_MAX_MODULI], lim[HEPA_RING_MAX_MODULI];
    for (size_t l = 1; l <= L; ++l) {
        const size_t E = l + K, dn = dnum_of(ks, l);
        if (ks->maps) ks->up_map[l] = mw;
        for (size_t j = 0; j < dn; ++j) {
            const size_t lo = j * a, cnt = (l - lo < a ? l - lo : a), mw0 = mw;
            size_t nt = 0;
            for (size_t e = 0; e < E; ++e) {
                if (e >= lo && e < lo + cnt) continue;
                if (ks->maps) ks->maps[mw] = (uint32_t)((j * E + e) << 8 | ext_mod(ks, l, e));
                dst[nt] = ext_mod(ks, l, e), lim[nt] = e, ++nt, ++mw;
            }
            for (size_t k = 0; k < cnt; ++k) src[k] = lo + k;
            if (ks->tabs) {
                ks->up_tab[l * ks->dmax + j] = tw;
                _hepa_conv_build(r, ks->tabs + tw, src, cnt, dst, lim, nt);
                const uint64_t *tb = ks->tabs + tw; /* layout: conv_core.h */
                for (size_t t = 0; ks->aux && t < nt; ++t) {
                    ks->aux[3 * (mw0 + t)] = lo;
                    ks->aux[3 * (mw0 + t) + 1] = tb[4 + 4 * cnt + 5 * t + 4]; /* S mod t */
                    ks->aux[3 * (mw0 + t) + 2] = tb[4 + 3];                   /* 1/s_0 */
                }
            }
            tw += hepa_conv_words(cnt, nt);
        }
        if (ks->maps) ks->up_map_len[l] = mw - ks->up_map[l];
        if (ks->maps) ks->p_map[l] = mw;
        for (size_t k = 0; k < K; ++k) {
            if (ks->maps) ks->maps[mw] = (uint32_t)((l + k) << 8 | (L + k));
            src[k] = L + k, ++mw;
        }
        for (size_t k = 0; k < K; ++k, ++mw)
            if (ks->maps) ks->maps[mw] = (uint32_t)((E + l + k) << 8 | (L + k));
        for (size_t p = 0; p < 2; ++p)
            for (size_t i = 0; i < l; ++i, ++mw)
                if (ks->maps) ks->maps[mw] = (uint32_t)((p * l + i) << 8 | i);
        for (size_t i = 0; i < l; ++i) dst[i] = i;
        if (ks->tabs) {
            ks->down_tab[l] = tw;
            _hepa_conv_build(r, ks->tabs + tw, src, K, dst, NULL, l);
        }
        tw += hepa_conv_words(K, l);
        if (l < 2) continue;
        /* MODDOWN RESCALE: sources q_(l-1) and P, targets q_0 .. q_(l-2) */
        if (ks->maps) ks->rs_map[l] = mw;
        for (size_t p = 0; p < 2; ++p)
            for (size_t k = 0; k <= K; ++k, ++mw)
                if (ks->maps)
                    ks->maps[mw] = (uint32_t)((p * E + l - 1 + k) << 8 | (k ? L + k - 1 : l - 1));
        for (size_t p = 0; p < 2; ++p)
            for (size_t i = 0; i + 1 < l; ++i, ++mw)
                if (ks->maps) ks->maps[mw] = (uint32_t)((p * (l - 1) + i) << 8 | i);
        src[0] = l - 1;
        for (size_t k = 0; k < K; ++k)
            src[k + 1] = L + k;
        if (ks->tabs) {
            ks->rs_tab[l] = tw;
            _hepa_conv_build(r, ks->tabs + tw, src, K + 1, dst, NULL, l - 1);
        }
        tw += hepa_conv_words(K + 1, l - 1);
    }
    ks->tabs_words = tw;
    ks->maps_len = mw;
}

/* ks->drs (MODDOWN RESCALE's last-pass constants, levels 2 .. L) onto the device */
static hepa_status upload_drs(hepa_ks *ks) {
    const hepa_ring *r = ks->ring;
    const size_t L = ks->L, bw = 1 + 3 * L, words = (L - 1) * bw;
    uint64_t *h = calloc(words, sizeof *h);
    if (!h) return HEPA_ERR_OUT_OF_MEMORY;
    uint64_t inv[HEPA_RING_MAX_MODULI], inv_sh[HEPA_RING_MAX_MODULI], qmod[HEPA_RING_MAX_MODULI];
    for (size_t l = 2; l <= L; ++l) {
        uint64_t *b = h + (l - 2) * bw;
        _hepa_rescale_consts(r, l, inv, inv_sh, qmod);
        for (size_t i = 0; i + 1 < l; ++i) {
            b[1 + 3 * i] = inv[i];
            b[2 + 3 * i] = ks->pinv[i];
            b[3 + 3 * i] = ks->pinv_sh[i];
        }
    }
    hepa_status s = _hepa_dev_alloc(r, (void **)&ks->drs, words * sizeof *h);
    if (s == HEPA_OK) s = _hepa_dev_copy(r, ks->drs, h, words * sizeof *h, 0);
    if (s == HEPA_OK) s = _hepa_dev_sync(r); /* h is freed below */
    free(h);
    return s;
}

hepa_status hepa_ks_create(hepa_ks **out, const hepa_ring *ring, size_t num_special,
                           size_t digit_size) {
    if (!out || !ring) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t M = ring->num_moduli;
    if (num_special == 0 || num_special >= M) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t L = M - num_special;
    if (digit_size == 0) digit_size = num_special < L ? num_special : L;
    if (digit_size > L) return HEPA_ERR_INVALID_ARGUMENT;
    hepa_ks *ks = calloc(1, sizeof *ks);
    if (!ks) return HEPA_ERR_OUT_OF_MEMORY;
    ks->ring = ring, ks->L = L, ks->K = num_special, ks->alpha = digit_size;
    ks->dmax = dnum_of(ks, L);
    build_levels(ks); /* sizes */
    ks->up_tab = calloc((L + 1) * ks->dmax, sizeof *ks->up_tab);
    ks->down_tab = calloc(L + 1, sizeof *ks->down_tab);
    ks->up_map = calloc(L + 1, sizeof *ks->up_map);
    ks->up_map_len = calloc(L + 1, sizeof *ks->up_map_len);
    ks->p_map = calloc(L + 1, sizeof *ks->p_map);
    ks->rs_tab = calloc(L + 1, sizeof *ks->rs_tab);
    ks->rs_map = calloc(L + 1, sizeof *ks->rs_map);
    ks->tabs = malloc(ks->tabs_words * sizeof *ks->tabs);
    ks->maps = malloc(ks->maps_len * sizeof *ks->maps);
    /* aux: one-limb digits only. (Digits of 2-4 limbs have their conversion fused into the
     * column pass of the fused ModUp + inner product instead, with v_k and u computed once per
     * tile and kept in shared memory: _hepa_dev_ntt_modupn_cols. An earlier fusion into the
     * NTT's first pass that read v_k and u back from memory for every target was measured
     * slower on an H100: 2^16/33, K = 3: ModUp 737 -> 784 µs; K = 4: 635 -> 699 µs.) */
    const int fused_up = on_device(ring) && digit_size == 1;
    if (fused_up) ks->aux = calloc(3 * ks->maps_len, sizeof *ks->aux);
    if (!ks->up_tab || !ks->down_tab || !ks->up_map || !ks->up_map_len || !ks->p_map ||
        !ks->rs_tab || !ks->rs_map || !ks->tabs || !ks->maps || (fused_up && !ks->aux)) {
        hepa_ks_destroy(ks);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    build_levels(ks);
    for (size_t i = 0; i < L; ++i) {
        const hepa_modulus *m = &ring->mods[i];
        uint64_t p = 1;
        for (size_t k = 0; k < num_special; ++k)
            p = hepa_mod_mul(p, hepa_mod_reduce64(ring->moduli[L + k], m), m);
        ks->pmod[i] = p;
        ks->pinv[i] = hepa_mod_inv(p, m->value);
        ks->pinv_sh[i] = hepa_shoup_precompute(ks->pinv[i], m->value);
    }
    if (on_device(ring)) {
        if (!(ks->graph = calloc(1, sizeof *ks->graph)) ||
            !(ks->graph->exec = calloc(3 * (L + 1), sizeof *ks->graph->exec))) {
            hepa_ks_destroy(ks);
            return HEPA_ERR_OUT_OF_MEMORY;
        }
        const size_t tb = ks->tabs_words * sizeof *ks->tabs, mb = ks->maps_len * sizeof *ks->maps;
        const size_t ab = 3 * ks->maps_len * sizeof *ks->aux;
        hepa_status s;
        if ((s = _hepa_dev_alloc(ring, (void **)&ks->dtabs, tb)) != HEPA_OK ||
            (s = _hepa_dev_alloc(ring, (void **)&ks->dmaps, mb)) != HEPA_OK ||
            (s = _hepa_dev_copy(ring, ks->dtabs, ks->tabs, tb, 0)) != HEPA_OK ||
            (s = _hepa_dev_copy(ring, ks->dmaps, ks->maps, mb, 0)) != HEPA_OK ||
            (fused_up && (s = _hepa_dev_alloc(ring, (void **)&ks->daux, ab)) != HEPA_OK) ||
            (fused_up && (s = _hepa_dev_copy(ring, ks->daux, ks->aux, ab, 0)) != HEPA_OK)) {
            hepa_ks_destroy(ks);
            return s;
        }
        const size_t dw = 1 + 3 * L + (num_special == 1 ? 3 * L : 0);
        uint64_t *down = calloc(dw, sizeof *down);
        if (!down) {
            hepa_ks_destroy(ks);
            return HEPA_ERR_OUT_OF_MEMORY;
        }
        const uint64_t *dt = ks->tabs + ks->down_tab[L]; /* layout: conv_core.h */
        for (size_t i = 0; i < L; ++i) {
            down[2 + 3 * i] = ks->pinv[i];
            down[3 + 3 * i] = ks->pinv_sh[i];
            if (num_special == 1) {
                down[1 + 3 * L + 3 * i + 1] = dt[4 + 4 + 5 * i + 4]; /* P mod q_i */
                down[1 + 3 * L + 3 * i + 2] = dt[4 + 3];             /* 1/P */
            }
        }
        if ((s = _hepa_dev_alloc(ring, (void **)&ks->ddown, dw * sizeof *down)) != HEPA_OK ||
            (s = _hepa_dev_copy(ring, ks->ddown, down, dw * sizeof *down, 0)) != HEPA_OK ||
            (s = _hepa_dev_sync(ring)) != HEPA_OK) {
            free(down);
            hepa_ks_destroy(ks);
            return s;
        }
        free(down);
        if (L >= 2 && (s = upload_drs(ks)) != HEPA_OK) {
            hepa_ks_destroy(ks);
            return s;
        }
    }
    *out = ks;
    return HEPA_OK;
}

size_t hepa_ks_max_level(const hepa_ks *ks) { return ks->L; }
size_t hepa_ks_num_special(const hepa_ks *ks) { return ks->K; }
size_t hepa_ks_digit_size(const hepa_ks *ks) { return ks->alpha; }
size_t hepa_ks_num_digits(const hepa_ks *ks, size_t level) {
    return level >= 1 && level <= ks->L ? dnum_of(ks, level) : 0;
}

/* ---- keys --------------------------------------------------------------------------------- */

void hepa_ksk_destroy(hepa_ksk *key) {
    if (!key) return;
    if (key->data) {
        if (on_device(key->ks->ring))
            _hepa_dev_free(key->ks->ring, key->data);
        else
            free(key->data);
    }
    free(key);
}

size_t hepa_ksk_bytes(const hepa_ksk *key) {
    return key ? 2 * key->dnum * key->comp : 0;
}

/* Components c0 .. c0 + nc - 1 of the key as words into host memory out, M·n words each. */
static hepa_status export_comps(const hepa_ksk *key, size_t c0, size_t nc, uint64_t *out) {
    const hepa_ring *r = key->ks->ring;
    const size_t M = r->num_moduli, n = r->n;
    if (!on_device(r)) { /* the host backend packs nothing */
        memcpy(out, key->data + c0 * key->comp, nc * key->comp);
        return HEPA_OK;
    }
    unsigned char *buf = malloc(key->comp);
    if (!buf) return HEPA_ERR_OUT_OF_MEMORY;
    hepa_status s = HEPA_OK;
    for (size_t c = 0; c < nc && s == HEPA_OK; ++c) {
        const unsigned char *comp = key->data + (c0 + c) * key->comp;
        if ((s = _hepa_dev_copy(r, buf, comp, key->comp, 1)) != HEPA_OK ||
            (s = _hepa_dev_sync(r)) != HEPA_OK)
            break;
        for (unsigned m = 0; m < M; ++m) {
            const unsigned char *limb = buf + hepa_ksk_limb_at(key->packed, n, m);
            for (size_t x = 0; x < n; ++x)
                out[(c * M + m) * n + x] = hepa_ksk_word(limb, (int)(key->packed >> m & 1), n, x);
        }
    }
    free(buf);
    return s;
}

hepa_status hepa_ksk_export(const hepa_ksk *key, uint64_t *out) {
    if (!key || !out) return HEPA_ERR_INVALID_ARGUMENT;
    return export_comps(key, 0, 2 * key->dnum, out);
}

/* One component (M limbs of n words, backend memory) into the key's storage. */
static hepa_status store_comp(const hepa_ksk *key, size_t c, const uint64_t *src) {
    const hepa_ring *r = key->ks->ring;
    if (on_device(r)) return _hepa_dev_ksk_pack(r, key->data + c * key->comp, src, key->packed);
    memcpy(key->data + c * key->comp, src, key->comp);
    return HEPA_OK;
}

/* An empty key of ks's shape in the ring backend's memory, seeded by `seed` when not NULL
 * (SEEDED KEYS, below; *out on HEPA_OK only). */
static hepa_status ksk_alloc(hepa_ksk **out, const hepa_ks *ks, const uint8_t *seed) {
    const hepa_ring *r = ks->ring;
    const size_t M = r->num_moduli;
    hepa_ksk *key = calloc(1, sizeof *key);
    if (!key) return HEPA_ERR_OUT_OF_MEMORY;
    key->ks = ks;
    key->dnum = dnum_of(ks, ks->L);
    if ((key->seeded = seed != NULL)) memcpy(key->seed, seed, sizeof key->seed);
    for (size_t m = 0; on_device(r) && m < M; ++m)
        if (r->moduli[m] < HEPA_KSK_PACK_BELOW) key->packed |= (uint64_t)1 << m;
    key->comp = hepa_ksk_limb_at(key->packed, r->n, (unsigned)M);
    hepa_status s = HEPA_OK;
    if (on_device(r)) {
        s = _hepa_dev_alloc(r, (void **)&key->data, hepa_ksk_bytes(key));
    } else if (!(key->data = malloc(hepa_ksk_bytes(key)))) {
        s = HEPA_ERR_OUT_OF_MEMORY;
    }
    if (s != HEPA_OK) {
        hepa_ksk_destroy(key);
        return s;
    }
    *out = key;
    return HEPA_OK;
}

size_t hepa_ks_key_words(const hepa_ks *ks) {
    return ks ? dnum_of(ks, ks->L) * 2 * ks->ring->num_moduli * ks->ring->n : 0;
}

/* A key from host words: 2·dnum components (seed NULL), or the dnum b_j with the a_j drawn from
 * seed's stream (SEEDED KEYS, below). Each b_j or a_j goes through the checks of hepa_poly_set
 * (on the CUDA backend through a device polynomial and the upload, then the same packing as
 * hepa_ksk_create's), so a bad word fails the call after the components before it were stored:
 * the key is then destroyed. */
static hepa_status ksk_load(hepa_ksk **out, const hepa_ks *ks, const uint64_t *words,
                            const uint8_t *seed) {
    const hepa_ring *r = ks->ring;
    const size_t M = r->num_moduli, cw = M * r->n; /* words of one component */
    hepa_ksk *key = NULL;
    hepa_poly *t = NULL, *a = NULL;
    hepa_rng *ga = NULL;
    hepa_status s = ksk_alloc(&key, ks, seed);
    if (s == HEPA_OK && on_device(r)) s = hepa_poly_create(&t, r, M);
    if (s == HEPA_OK && seed && (s = hepa_rng_create(&ga, seed)) == HEPA_OK)
        s = hepa_poly_create(&a, r, M);
    for (size_t c = 0; s == HEPA_OK && c < 2 * key->dnum; ++c) {
        if (seed && c % 2) { /* a_j */
            if ((s = hepa_sample_uniform(ga, a, HEPA_DOMAIN_NTT)) == HEPA_OK)
                s = store_comp(key, c, a->data);
            continue;
        }
        const uint64_t *src = words + (seed ? c / 2 : c) * cw;
        if (t)
            s = hepa_poly_set(t, src, HEPA_DOMAIN_NTT);
        else if (!_hepa_limbs_ok(r, M, src))
            s = HEPA_ERR_INVALID_ARGUMENT;
        if (s == HEPA_OK) s = store_comp(key, c, t ? t->data : src);
    }
    hepa_poly_destroy(t), hepa_poly_destroy(a); /* stream-ordered on the device */
    hepa_rng_destroy(ga);
    if (s != HEPA_OK) {
        hepa_ksk_destroy(key);
        return s;
    }
    *out = key;
    return HEPA_OK;
}

hepa_status hepa_ksk_import(hepa_ksk **out, const hepa_ks *ks, const uint64_t *words,
                            size_t count) {
    if (!out || !ks || !words) return HEPA_ERR_INVALID_ARGUMENT;
    if (count != hepa_ks_key_words(ks)) return HEPA_ERR_MISMATCH;
    return ksk_load(out, ks, words, NULL);
}

hepa_status hepa_ksk_import_seeded(hepa_ksk **out, const hepa_ks *ks, const uint8_t *seed,
                                   const uint64_t *b_words, size_t count) {
    if (!out || !ks || !seed || !b_words) return HEPA_ERR_INVALID_ARGUMENT;
    if (count != hepa_ks_key_words(ks) / 2) return HEPA_ERR_MISMATCH;
    return ksk_load(out, ks, b_words, seed);
}

/* SEEDED KEYS. Every a_j is uniform and public, so it can travel as the 32-byte seed of the
 * ChaCha20 stream it was drawn from (as SEAL's seeded serialization does): a seeded key exports
 * and imports as its seed plus its b_j, half the words. The stream of `seed` gives a_0, a_1, ..
 * in digit order (hepa_sample_uniform's draws, the same on both backends); e_j come from the
 * caller's generator. Unseeded keys draw a_j and e_j alternately from it. */
static hepa_status ksk_make(hepa_ksk **out, const hepa_ks *ks, const hepa_poly *s_from,
                            const hepa_poly *s_to, hepa_rng *rng, const uint8_t *seed) {
    if (!out || !ks || !s_from || !s_to || !rng) return HEPA_ERR_INVALID_ARGUMENT;
    const hepa_ring *r = ks->ring;
    const size_t M = r->num_moduli;
    if (s_from->ring != r || s_to->ring != r || s_from->level != M || s_to->level != M)
        return HEPA_ERR_MISMATCH;
    if (s_from->domain != HEPA_DOMAIN_NTT || s_to->domain != HEPA_DOMAIN_NTT)
        return HEPA_ERR_DOMAIN;
    hepa_ksk *key = NULL;
    hepa_rng *ga = rng; /* the a_j's generator */
    hepa_status s = ksk_alloc(&key, ks, seed);
    if (s != HEPA_OK) return s;
    if (seed) s = hepa_rng_create(&ga, seed);
    hepa_poly *a = NULL, *b = NULL, *t = NULL;
    if (s == HEPA_OK && (s = hepa_poly_create(&a, r, M)) == HEPA_OK &&
        (s = hepa_poly_create(&b, r, M)) == HEPA_OK)
        s = hepa_poly_create(&t, r, M);
    /* P mod q_i on the primes of digit j, 0 on every other limb (P ≡ 0 mod each p_k) */
    uint64_t scal[HEPA_RING_MAX_MODULI];
    for (size_t j = 0; s == HEPA_OK && j < key->dnum; ++j) {
        for (size_t i = 0; i < M; ++i) scal[i] = i < ks->L && i / ks->alpha == j ? ks->pmod[i] : 0;
        if ((s = hepa_sample_uniform(ga, a, HEPA_DOMAIN_NTT)) != HEPA_OK ||
            (s = hepa_sample_gaussian(rng, b, HEPA_SIGMA_DEFAULT)) != HEPA_OK ||
            (s = hepa_poly_to_ntt(b)) != HEPA_OK || /* b = e */
            (s = hepa_poly_mul(t, a, s_to)) != HEPA_OK ||
            (s = hepa_poly_sub(b, b, t)) != HEPA_OK || /* e - a·s_to */
            (s = hepa_poly_mul_scalar(t, s_from, scal)) != HEPA_OK ||
            (s = hepa_poly_add(b, b, t)) != HEPA_OK || /* + P·g_j·s_from */
            (s = store_comp(key, 2 * j, b->data)) != HEPA_OK)
            break;
        s = store_comp(key, 2 * j + 1, a->data);
    }
    hepa_poly_destroy(a), hepa_poly_destroy(b), hepa_poly_destroy(t);
    if (ga != rng) hepa_rng_destroy(ga);
    if (s != HEPA_OK) {
        hepa_ksk_destroy(key);
        return s;
    }
    *out = key;
    return HEPA_OK;
}

hepa_status hepa_ksk_create(hepa_ksk **out, const hepa_ks *ks, const hepa_poly *s_from,
                            const hepa_poly *s_to, hepa_rng *rng) {
    return ksk_make(out, ks, s_from, s_to, rng, NULL);
}

hepa_status hepa_ksk_create_seeded(hepa_ksk **out, const hepa_ks *ks, const hepa_poly *s_from,
                                   const hepa_poly *s_to, hepa_rng *rng, const uint8_t *seed) {
    if (!seed) return HEPA_ERR_INVALID_ARGUMENT;
    return ksk_make(out, ks, s_from, s_to, rng, seed);
}

hepa_status hepa_ksk_export_seeded(const hepa_ksk *key, uint8_t *seed, uint64_t *b_out) {
    if (!key || !seed || !b_out) return HEPA_ERR_INVALID_ARGUMENT;
    if (!key->seeded) return HEPA_ERR_UNSUPPORTED;
    const size_t cw = key->ks->ring->num_moduli * key->ks->ring->n;
    hepa_status s = HEPA_OK;
    for (size_t j = 0; j < key->dnum && s == HEPA_OK; ++j)
        s = export_comps(key, 2 * j, 1, b_out + j * cw); /* b_j */
    if (s == HEPA_OK) memcpy(seed, key->seed, sizeof key->seed);
    return s;
}

/* ---- the three steps ------------------------------------------------------------------------ */

/* ModUp on the device: the inverse NTT of c, then every digit's other limbs converted and
 * forward transformed. whole = 0 (n >= 2^13 only): the NTTs stop before their last pass and the
 * digits' own limbs are not copied; _hepa_dev_ks_rows_inner does both in its fused pass. */
static hepa_status dev_modup(const hepa_ks *ks, size_t l, uint64_t *ext, const uint64_t *c,
                             uint64_t *tmp, int whole) {
    const hepa_ring *r = ks->ring;
    const size_t n = r->n, E = l + ks->K, dn = dnum_of(ks, l), a = ks->alpha;
    const uint32_t *map = ks->dmaps + ks->up_map[l];
    const size_t cnt = ks->up_map_len[l];
    hepa_status s = _hepa_dev_ntt_inverse(r, l, tmp, c);
    if (s != HEPA_OK) return s;
    if (ks->daux) { /* one-limb digits: the conversion rides in the NTT's first pass */
        const uint64_t *aux = ks->daux + 3 * ks->up_map[l];
        s = whole ? _hepa_dev_ks_modup1(r, l, E, ext, c, tmp, map, cnt, aux)
                  : _hepa_dev_ntt_modup_cols(r, cnt, E - 1, ext, tmp, map, aux);
        if (s != HEPA_ERR_UNSUPPORTED) return s; /* n < 2^10: the path below */
    }
    if (!whole && a >= 2) { /* the conversion fused into the column pass */
        const uint64_t *tabs[HEPA_CONV_MAX_JOBS];
        for (size_t j = 0; j < dn && j < HEPA_CONV_MAX_JOBS; ++j)
            tabs[j] = ks->dtabs + ks->up_tab[l * ks->dmax + j];
        s = _hepa_dev_ntt_modupn_cols(r, l, E, a, ext, tmp, map, tabs);
        if (s != HEPA_ERR_UNSUPPORTED) return s; /* else the two steps below */
    }
    hepa_conv_job jobs[HEPA_CONV_MAX_JOBS];
    for (size_t j = 0; j < dn; ++j) {
        jobs[j].tab = ks->dtabs + ks->up_tab[l * ks->dmax + j];
        jobs[j].in = tmp + j * a * n;
        jobs[j].out = ext + j * E * n;
        jobs[j].copy_in = whole ? c + j * a * n : NULL;
        jobs[j].copy_at = j * a;
        jobs[j].pack = !whole && _hepa_dev_ks_packed(r); /* PACKED COLUMNS for the fused pass */
        jobs[j].smax = hepa_conv_smax(ks->tabs + ks->up_tab[l * ks->dmax + j]);
    }
    if ((s = _hepa_dev_conv(r, jobs, dn, a, 1)) != HEPA_OK) return s;
    return whole ? _hepa_dev_ntt_map(r, 0, ext, ext, map, cnt)
                 : _hepa_dev_ntt_modup_cols(r, cnt, 0, ext, NULL, map, NULL);
}

hepa_status _hepa_ks_modup(const hepa_ks *ks, size_t l, uint64_t *ext, const uint64_t *c,
                           uint64_t *tmp) {
    const hepa_ring *r = ks->ring;
    const size_t n = r->n, E = l + ks->K, dn = dnum_of(ks, l), a = ks->alpha;
    if (on_device(r)) return dev_modup(ks, l, ext, c, tmp, 1);
    memcpy(tmp, c, l * n * sizeof *tmp);
    _hepa_host_ntt_inverse(r, l, tmp);
    for (size_t j = 0; j < dn; ++j) {
        const size_t lo = j * a, cnt = l - lo < a ? l - lo : a;
        uint64_t *x = ext + j * E * n;
        _hepa_host_conv(ks->tabs + ks->up_tab[l * ks->dmax + j], n, x, tmp + lo * n, 1);
        memcpy(x + lo * n, c + lo * n, cnt * n * sizeof *x);
        for (size_t e = 0; e < E; ++e)
            if (e < lo || e >= lo + cnt) _hepa_ntt_forward(r->ntt[ext_mod(ks, l, e)], x + e * n);
    }
    return HEPA_OK;
}

/* The host inner product; src (n entries) or NULL: ext is read at src[x] for output x
 * (hepa_automorphism_hoisted's σ_g of the digits, _hepa_auto_ntt_src). As ks_inner_kernel: the
 * products (each below q^2 < 2^124) summed in 128 bits and reduced every 16 terms and at the end
 * (one reduction per 16 products instead of one per product: 2.9 -> 1.1 ms at n = 2^13, 8
 * primes, K = 2 on one core of the development machine). */
static void host_inner(const hepa_ks *ks, size_t l, uint64_t *t0, uint64_t *t1, const uint64_t *ext,
                       const hepa_ksk *key, const uint32_t *src) {
    const hepa_ring *r = ks->ring;
    const size_t n = r->n, E = l + ks->K, dn = dnum_of(ks, l), W = r->num_moduli * n;
    const uint64_t *kw = (const uint64_t *)key->data; /* the host backend packs nothing */
    for (size_t e = 0; e < E; ++e) {
        const size_t mi = ext_mod(ks, l, e);
        const hepa_modulus *m = &r->mods[mi];
#ifdef HEPA_HOST_AVX512
        if (_hepa_ntt_use_avx512() && n % 8 == 0) { /* the same words, eight at a time */
            _hepa_host_inner_avx512(n, dn, ext + e * n, E * n, kw + mi * n, 2 * W, W, src, m->value,
                                    t0 + e * n, t1 + e * n);
            continue;
        }
#endif
        for (size_t x = 0; x < n; ++x) {
            const size_t xs = src ? src[x] : x;
            uint64_t h0 = 0, l0 = 0, h1 = 0, l1 = 0;
            for (size_t j = 0; j < dn; ++j) {
                const uint64_t v = ext[(j * E + e) * n + xs];
                hepa_mac64(v, kw[2 * j * W + mi * n + x], &h0, &l0);
                hepa_mac64(v, kw[(2 * j + 1) * W + mi * n + x], &h1, &l1);
                if ((j & 15) == 15) {
                    l0 = hepa_mod_reduce128(h0, l0, m), h0 = 0;
                    l1 = hepa_mod_reduce128(h1, l1, m), h1 = 0;
                }
            }
            t0[e * n + x] = hepa_mod_reduce128(h0, l0, m);
            t1[e * n + x] = hepa_mod_reduce128(h1, l1, m);
        }
    }
}

hepa_status _hepa_ks_inner(const hepa_ks *ks, size_t l, uint64_t *t0, uint64_t *t1,
                           const uint64_t *ext, const hepa_ksk *key) {
    const hepa_ring *r = ks->ring;
    if (on_device(r))
        return _hepa_dev_ks_inner(r, l, ks->K, dnum_of(ks, l), t0, t1, ext, key->data, key->comp,
                                  key->packed);
    host_inner(ks, l, t0, t1, ext, key, NULL);
    return HEPA_OK;
}

/* ModUp and the inner product; pack_q (device, n >= 2^13): t0 / t1's Q limbs in PACKED Q LIMBS
 * where the device packs them (_hepa_dev_ks_rows_inner), for moddown's packed last pass
 * (keyswitch_run; the raw _hepa_ks_modup_inner keeps 8-byte words) */
static hepa_status modup_inner(const hepa_ks *ks, size_t l, uint64_t *t0, uint64_t *t1,
                               uint64_t *ext, const uint64_t *c, uint64_t *tmp, const hepa_ksk *key,
                               int pack_q) {
    const hepa_ring *r = ks->ring;
    if (on_device(r) && r->log_n >= 13) {
        /* every NTT pass of ModUp but the last, then the last fused with the inner product */
        const hepa_status s = dev_modup(ks, l, ext, c, tmp, 0);
        if (s != HEPA_OK) return s;
        return _hepa_dev_ks_rows_inner(r, l, ks->K, ks->alpha, dnum_of(ks, l), t0, t1, ext, c,
                                       key->data, key->comp, key->packed, 0, l + ks->K, pack_q, 0,
                                       1);
    }
    hepa_status s = _hepa_ks_modup(ks, l, ext, c, tmp);
    return s != HEPA_OK ? s : _hepa_ks_inner(ks, l, t0, t1, ext, key);
}

hepa_status _hepa_ks_modup_inner(const hepa_ks *ks, size_t l, uint64_t *t0, uint64_t *t1,
                                 uint64_t *ext, const uint64_t *c, uint64_t *tmp,
                                 const hepa_ksk *key) {
    return modup_inner(ks, l, t0, t1, ext, c, tmp, key, 0);
}

/* Whether t1 follows t0 in keyswitch_run's scratch (t1 = t0 + (l + K)·n, hepa_keyswitch_add's
 * layout): ModDown's P-limb map and its fused column pass take the pair as one buffer then. */
static int pair_adjacent(const hepa_ks *ks, size_t l, const uint64_t *t0, const uint64_t *t1) {
    return t1 == t0 + (l + ks->K) * ks->ring->n;
}

/* ModDown's start on the device, enqueued through `on`: the inverse NTT of t0 / t1's P limbs in
 * place, then with conv their conversion to the l Q limbs into tmp (the pair at tmp, tmp + l·n;
 * with pack in PACKED COLUMNS where the device packs them, for _hepa_dev_ntt_moddown's packed
 * first pass). */
static hepa_status dev_moddown_p(const hepa_ks *ks, const hepa_ring *on, size_t l, uint64_t *t0,
                                 uint64_t *t1, uint64_t *tmp, int conv, int pack) {
    const size_t n = on->n, K = ks->K;
    const uint32_t *pm = ks->dmaps + ks->p_map[l];
    hepa_status s;
    /* one launch when t1 follows t0 (single-limb transforms are latency bound: two launches of
     * 2^16 took 27 µs on an H100) */
    if (pair_adjacent(ks, l, t0, t1))
        s = _hepa_dev_ntt_map(on, 1, t0, t0, pm, 2 * K);
    else if ((s = _hepa_dev_ntt_map(on, 1, t0, t0, pm, K)) == HEPA_OK)
        s = _hepa_dev_ntt_map(on, 1, t1, t1, pm, K);
    if (s != HEPA_OK || !conv) return s;
    const uint64_t *tab = ks->dtabs + ks->down_tab[l];
    const uint64_t smax = hepa_conv_smax(ks->tabs + ks->down_tab[l]);
    const int pk = pack && _hepa_dev_ks_packed(on);
    const hepa_conv_job jobs[2] = {{tab, t0 + l * n, tmp, NULL, 0, pk, smax},
                                   {tab, t1 + l * n, tmp + l * n, NULL, 0, pk, smax}};
    return _hepa_dev_conv(on, jobs, 2, K, 1);
}

/* ModDown on the device, n >= 2^13 (t1 = t0 + (l + K)·n is hepa_keyswitch_add's layout): phase
 * 1 enqueues, through `on` (the ring or its helper view), the inverse NTT of the P limbs, for
 * K > 1 the conversion, and the forward NTT's passes but the last, into tmp; phase 2 the last
 * pass, with the subtract-and-scale and the adds; phase 0 both. Phase 1 reads and writes only
 * t0 / t1's P limbs and tmp, so it may run beside the row pass of the Q limbs. packed: t0 / t1's
 * Q limbs are in PACKED Q LIMBS (modup_inner's pack_q), and the pair between the passes goes in
 * PACKED COLUMNS (where the device packs them). */
static hepa_status dev_moddown(const hepa_ks *ks, const hepa_ring *on, size_t l, uint64_t *out0,
                               uint64_t *out1, uint64_t *t0, uint64_t *t1, uint64_t *tmp,
                               const uint64_t *add0, const uint64_t *add1,
                               const hepa_tensor_in *tens, int packed, int phase) {
    const size_t n = on->n, K = ks->K;
    if (phase != 2) {
        /* MODDOWN CONVERSION IN THE COLUMN PASS (K = 2 .. HEPA_DEV_FUSED_CONV_MAX, PACKED
         * COLUMNS, keyswitch_run's layout): the first NTT pass converts as it loads */
        const int fuse = K >= 2 && K <= HEPA_DEV_FUSED_CONV_MAX && packed &&
                         _hepa_dev_ks_packed(on) && pair_adjacent(ks, l, t0, t1);
        hepa_status s = dev_moddown_p(ks, on, l, t0, t1, tmp, K > 1 && !fuse, packed);
        if (s != HEPA_OK) return s;
        if (fuse) {
            s = _hepa_dev_ntt_moddownn_cols(on, l, K, tmp, t0 + l * n,
                                            ks->dmaps + ks->p_map[l] + 2 * K,
                                            ks->dtabs + ks->down_tab[l]);
            if (s != HEPA_OK || phase == 1) return s;
            phase = 2; /* the last pass remains */
        }
    }
    /* fused: the subtract-and-scale (and the adds) in the NTT's last pass and, for K = 1, the
     * conversion in its first; tmp holds the pair between the passes */
    const uint64_t *conv1 = K == 1 ? ks->ddown + 1 + 3 * ks->L : NULL;
    return _hepa_dev_ntt_moddown(on, l, out0, out1, tmp, t0, t1, K == 1 ? t0 + l * n : tmp,
                                 K == 1 ? t1 + l * n : tmp + l * n, conv1, ks->ddown, add0, add1,
                                 tens, packed, phase, 0);
}

/* ModDown, then out_k += add_k where add_k is not NULL (in the pass that writes out_k: its last
 * NTT pass, the sub-scale kernel or the host loop, each reading add_k's word before writing
 * out_k's, so they may alias). tens (device, n >= 2^13 only; adds NULL): the adds are the tensor
 * product's d0, d1, computed in the last NTT pass (see _hepa_dev_ntt_moddown). packed: t0 / t1
 * come from modup_inner with pack_q (they are in PACKED Q LIMBS where the device packs them). */
static hepa_status moddown(const hepa_ks *ks, size_t l, uint64_t *out0, uint64_t *out1,
                           uint64_t *t0, uint64_t *t1, uint64_t *tmp, const uint64_t *add0,
                           const uint64_t *add1, const hepa_tensor_in *tens, int packed) {
    const hepa_ring *r = ks->ring;
    const size_t n = r->n, K = ks->K;
    const uint64_t *tab_h = ks->tabs + ks->down_tab[l];
    if (on_device(r)) {
        if (r->log_n >= 13)
            return dev_moddown(ks, r, l, out0, out1, t0, t1, tmp, add0, add1, tens, packed, 0);
        hepa_status s;
        if ((s = dev_moddown_p(ks, r, l, t0, t1, tmp, 1, 0)) != HEPA_OK ||
            (s = _hepa_dev_ntt_forward2(r, l, tmp, tmp, tmp + l * n, tmp + l * n)) != HEPA_OK)
            return s;
        return _hepa_dev_sub_scale(r, l, 2, out0, t0, tmp, out1, t1, tmp + l * n, ks->pinv,
                                   ks->pinv_sh, add0, add1);
    }
    uint64_t *ts[2] = {t0, t1}, *outs[2] = {out0, out1};
    const uint64_t *adds[2] = {add0, add1};
    for (int p = 0; p < 2; ++p) {
        uint64_t *t = ts[p], *y = tmp + p * l * n;
        for (size_t k = 0; k < K; ++k) _hepa_ntt_inverse(r->ntt[ks->L + k], t + (l + k) * n);
        _hepa_host_conv(tab_h, n, y, t + l * n, 1);
        _hepa_host_ntt_forward(r, l, y);
        for (size_t i = 0; i < l; ++i) {
            const uint64_t q = r->moduli[i];
            for (size_t x = i * n; x < (i + 1) * n; ++x) {
                const uint64_t v =
                    hepa_mul_shoup(hepa_mod_sub(t[x], y[x], q), ks->pinv[i], ks->pinv_sh[i], q);
                outs[p][x] = adds[p] ? hepa_mod_add(v, adds[p][x], q) : v;
            }
        }
    }
    return HEPA_OK;
}

/* MODDOWN RESCALE (hepa_mul_relin_rescale on the device): ModDown by P·q_(l-1) instead of P.
 * With x = t + P·d over Q_l ∪ P (t the inner product, d the tensor's d0 / d1), the exact
 * centred conversion of x's limbs of q_(l-1) and P to q_0 .. q_(l-2) is y = c + P·r, c the
 * centred value of t mod P (what ModDown converts) and r the centred last limb of ModDown's
 * output (what the rescale subtracts): both are odd-modulus centred residues, so c + P·r lies in
 * (-P·q/2, P·q/2) and is that centred value. Hence
 *   out_i = ((t_i - NTT_i(y))·P^(-1) + d_i)·q_(l-1)^(-1)
 * is word for word the rescale of ModDown's output, and one conversion (K + 1 sources) and one
 * forward NTT of l - 1 limbs replace the rescale's inverse NTT, its l - 1 forward NTTs and its
 * pass over the ciphertext. Device steps: the row pass of the P limbs and of q_(l-1) (8-byte
 * words, for the next step), x's limb l - 1 = t + P·d there (_hepa_dev_ks_rescale_prep), the
 * inverse NTT of the K + 1 limbs, the conversion + column pass (_hepa_dev_ntt_moddownn_cols at
 * level l - 1 with K + 1 sources), and beside them the Q rows of q_0 .. q_(l-2); then ModDown's
 * last pass at level l - 1 with d_i computed from the inputs and the sum scaled (XF 11). Where
 * that chain is not built (rescale_fused), hepa_mul_relin_rescale runs the two steps. */
/* MODDOWN RESCALE's last-pass constants of level l (ks->drs's layout) */
static const uint64_t *drs_of(const hepa_ks *ks, size_t l) {
    return ks->drs + (l - 2) * (1 + 3 * ks->L);
}
static int rescale_fused(const hepa_ks *ks, size_t l) {
    const hepa_ring *r = ks->ring;
    return on_device(r) && ks->drs && l >= 2 && _hepa_dev_ks_packed(r);
}

/* MODDOWN RESCALE's chain up to the last pass, enqueued through `on`, after the row pass of the
 * P limbs and q_(l-1)'s: x's limb l - 1, the inverse NTT of the K + 1 source limbs of t0 / t1,
 * their conversion + column pass into tmp (the pair at tmp, tmp + (l - 1)·n). */
static hepa_status dev_rescale_head(const hepa_ks *ks, const hepa_ring *on, size_t l, uint64_t *t0,
                                    uint64_t *t1, uint64_t *tmp, const hepa_tensor_in *tens) {
    const size_t n = on->n, K = ks->K;
    const uint32_t *rm = ks->dmaps + ks->rs_map[l];
    const uint64_t *tab = ks->dtabs + ks->rs_tab[l];
    hepa_status s = _hepa_dev_ks_rescale_prep(on, l, t0, t1, tens, ks->pmod[l - 1]);
    if (s == HEPA_OK) s = _hepa_dev_ntt_map(on, 1, t0, t0, rm, 2 * K + 2);
    if (s != HEPA_OK) return s;
    if (K + 1 <= HEPA_DEV_RESCALE_CONV_MAX)
        return _hepa_dev_ntt_moddownn_cols(on, l - 1, K + 1, tmp, t0 + (l - 1) * n, rm + 2 * K + 2,
                                           tab);
    /* more sources than the fused column pass takes: the conversion kernel (its targets in
     * PACKED COLUMNS), then the forward NTT's passes but the last, in place */
    const uint64_t smax = hepa_conv_smax(ks->tabs + ks->rs_tab[l]);
    uint64_t *tmp1 = tmp + (l - 1) * n;
    const hepa_conv_job jobs[2] = {{tab, t0 + (l - 1) * n, tmp, NULL, 0, 1, smax},
                                   {tab, t1 + (l - 1) * n, tmp1, NULL, 0, 1, smax}};
    if ((s = _hepa_dev_conv(on, jobs, 2, K + 1, 1)) != HEPA_OK) return s;
    return _hepa_dev_ntt_moddown(on, l - 1, NULL, NULL, tmp, t0, t1, tmp, tmp1, NULL, drs_of(ks, l),
                                 NULL, NULL, tens, 1, 1, 1);
}

/* MODDOWN RESCALE's last pass: (out0, out1) at level l - 1 */
static hepa_status dev_rescale_tail(const hepa_ks *ks, size_t l, uint64_t *out0, uint64_t *out1,
                                    const uint64_t *t0, const uint64_t *t1, uint64_t *tmp,
                                    const hepa_tensor_in *tens) {
    const hepa_ring *r = ks->ring;
    uint64_t *tmp1 = tmp + (l - 1) * r->n;
    return _hepa_dev_ntt_moddown(r, l - 1, out0, out1, tmp, t0, t1, tmp, tmp1, NULL, drs_of(ks, l),
                                 NULL, NULL, tens, 1, 2, 1);
}

/* Key switching on the device at n = 2^15 and 2^16 (and MODDOWN RESCALE's), in
 * hepa_keyswitch_add's layout: the row pass of the special primes' limbs (the first K block rows
 * of ks_rows_inner_kernel's grid) and ModDown up to its last pass run on the HELPER STREAM
 * (device/internal.h), beside the row pass of the Q limbs on the ring's stream: ModDown's start
 * needs only t0 / t1's P limbs, and its launches are small (the inverse NTT of the P pair: 128
 * and 64 blocks at 2^16, latency bound) where the Q rows are long and memory bound. Measured on
 * an H100 (tensor + hepa_keyswitch_add, same call, against ModUp + inner product then ModDown on
 * the ring's stream alone): 2^16/33 P = 1 1017.6, 1014.3 -> 1003.0, 1002.8 µs; P = 4 638.5,
 * 638.2 -> 633.0, 631.9; P = 2, 3 within 3 µs either way; 2^17/61/1 6275 -> 6265; but 2^15/17/1
 * 213.5 -> 230.2 (there the Q rows are 1.4 waves, and the helper's blocks, scheduled first,
 * lengthen them), so n = 2^13 .. 2^15 kept the one stream. Since PACKED COLUMNS' sector order
 * (hepa_pcol_hi), 2^17/61/1 is faster on the one stream too (hepa_mul_relin 6018, 6011, 6031 ->
 * 5989, 5991, 5992 µs), so only 2^16 used the helper (there P = 4 still gains about 10 µs: 625.5
 * against 635.6 on the one stream).
 * HELPER AT 2^15 (sixteenth session): measured again with every device key switch from 2^13 up on
 * the helper (bench/experiments/ks_helper_all.patch, removed), H100, hepa-bench --ks, same call,
 * two rounds, µs, one stream -> helper: 2^15/17/1 hepa_mul_relin 191.6, 191.9 -> 185.9, 185.8,
 * rotation 189.4, 189.8 -> 183.3, 182.5; but 2^13/4/1 46.6, 50.2 -> 58.8, 56.9, 2^14/8/1 76.7,
 * 76.7 -> 78.2, 78.3 and 2^17/61/1 5759.1, 5758.0 -> 5782.4, 5763.3. So 2^15 and 2^16 take the
 * helper; 2^13, 2^14 and 2^17 keep the one stream (bench/results/2026-12-07-h100-helper-n15.md).
 * At 2^15 only P = 1 was timed; P = 2..5 there run the helper's route in the tests only.
 * RESCALE ON THE HELPER: MODDOWN RESCALE (n = 2^15 .. 2^17, rescale_fused) always takes this
 * path, where its chain (the rows of P and q_(l-1), the prep kernel, the inverse NTT of K + 1
 * limbs, the conversion + column pass) runs beside the Q rows instead of after them. H100,
 * hepa-bench --ks, same call, two rounds, hepa_mul_relin_rescale µs, one stream -> helper:
 * 2^15/17/1 218.4, 218.4 -> 194.2, 194.3 (hepa_mul_relin 190.4-192.0, the two calls
 * 216.7-217.6); 2^17/61/1 5909.7, 5908.1 -> 5776.8, 5771.3 (hepa_mul_relin 5727.7-5740.3, the
 * two calls 5989.9-6014.2) (bench/results/2026-12-07-h100-rescale-helper.md). Until then 2^15
 * and 2^17 ran it on the ring's stream alone, in the order of this function's launches. */
/* HELPER PRIORITY IN GRAPHS (src/device/pdl.cuh): captured into a CUDA graph, the helper
 * stream's launches at K <= HEPA_HELPER_LOW_K take the default priority instead of the helper
 * stream's high one. Eagerly the high priority is the faster at every K; in a graph instantiated
 * with cudaGraphInstantiateFlagUseNodePriority the default one is the faster at K = 1 and the
 * high one at K = 3, 4. H200, hepa-bench --ks --n 65536, two rounds, hepa_mul_relin µs (eager /
 * graph with node priorities): all high, K = 1 841.6-843.5 / 849.2-856.4, K = 3 494.6-494.8 /
 * 481.2-481.5, K = 4 490.5-492.2 / 475.5-477.2; K = 1 at the default priority 878.3-878.9 /
 * 826.5-827.1; every K at the default 878-881, 531-532 (K = 3), 512 (K = 4) eager
 * (bench/results/2026-11-29-h200-cuda-graphs.md). MODDOWN RESCALE's helper chain (K + 1 rows,
 * the rescale's conversion) keeps the high priority: at the default one KS GRAPH made
 * hepa_mul_relin_rescale at K = 1 slower than eager. H100, ks_levels (a chain of
 * hepa_mul_relin_rescale from level L down to 2), same call, two rounds, chain GPU µs, eager /
 * graph at the default priority / graph at the high one: 2^16/33 12677.7, 12692.4 / 12826.5,
 * 12836.8 / 12250.4, 12266.7; 2^15/17 1929.0, 1912.8 / 1791.8, 1794.0 / 1772.8, 1774.5
 * (bench/results/2026-12-07-h100-ks-graph-levels.md). */
#ifndef HEPA_HELPER_LOW_K
#define HEPA_HELPER_LOW_K 1
#endif
/* NO PDL IN GRAPHS: captured, both row passes (the P limbs' on the helper stream, the Q limbs' on
 * the ring's) are launched without programmatic stream serialization (their pdl argument);
 * ModDown's launches keep it. The likely reason it helps (not timed): in a replayed graph the PDL
 * edge lets the Q rows' blocks (168 registers, 3 an SM) go resident during ModUp's last wave,
 * ahead of the helper stream's first kernel. H100, same call, three rounds, hepa_mul_relin
 * replayed from a graph instantiated with node priorities, µs at 2^16/33, PDL -> none on both:
 * P = 3 515.4, 517.0, 517.0 -> 507.6, 510.5, 510.6; P = 2 618.6, 619.2, 619.3 -> 607.6, 608.8,
 * 607.2; P = 4 502.8, 504.2, 503.5 -> 500.8, 499.6, 500.6; P = 1 881-893 either way. The Q rows
 * alone without PDL (ef524e8) got only part of it: 512.9-515.3, 615.5-618.1, 503.0-506.5 (another
 * call). The eager call keeps PDL: without it P = 4 measured 518.3-521.9 -> 522.8-524.2, P = 2
 * 626.0-629.7 -> 628.7-631.3, P = 1 and 3 level (bench/results/2026-12-06-h100-head-9a8131e.md,
 * 2026-12-06-h100-ks-rows-regcap-ef524e8.md). Only this helper path: the one-stream key switch of
 * other sizes has no helper chain for the edge to delay, and was not measured. */
/* HELPER AT 2^15: the ring sizes whose plain key switch takes dev_keyswitch (and KS GRAPH's) */
static int helper_size(const hepa_ring *r) {
    return r->log_n == 15 || r->log_n == 16;
}
static hepa_status dev_keyswitch(const hepa_ks *ks, size_t l, uint64_t *out0, uint64_t *out1,
                                 uint64_t *t0, uint64_t *t1, uint64_t *ext, const uint64_t *c,
                                 uint64_t *tmp, const hepa_ksk *key, const uint64_t *add0,
                                 const uint64_t *add1, const hepa_tensor_in *tens, int rescale) {
    const hepa_ring *r = ks->ring;
    const size_t K = ks->K, dn = dnum_of(ks, l);
    /* the helper's rows: P's (and with MODDOWN RESCALE q_(l-1)'s, in 8-byte words) */
    const size_t nh = rescale ? K + 1 : K;
    hepa_status s = dev_modup(ks, l, ext, c, tmp, 0);
    if (s != HEPA_OK || (s = _hepa_dev_fork(r)) != HEPA_OK) return s;
    /* the ring as seen through the helper stream */
    const int capturing = _hepa_dev_capturing(r);
    hepa_ring hv = *r;
    hepa_ring_device hd = *r->dev;
    hd.stream = hd.helper;
    if (K <= HEPA_HELPER_LOW_K && capturing && !rescale) hd.helper_prio = hd.least_prio;
    hv.dev = &hd;
    const int rows_pdl = !capturing; /* NO PDL IN GRAPHS, for both row passes */
    s = _hepa_dev_ks_rows_inner(&hv, l, K, ks->alpha, dn, t0, t1, ext, c, key->data, key->comp,
                                key->packed, 0, nh, 0, rescale, rows_pdl);
    if (s == HEPA_OK)
        s = rescale ? dev_rescale_head(ks, &hv, l, t0, t1, tmp, tens)
                    : dev_moddown(ks, &hv, l, out0, out1, t0, t1, tmp, add0, add1, tens, 1, 1);
    if (s == HEPA_OK)
        s = _hepa_dev_ks_rows_inner(r, l, K, ks->alpha, dn, t0, t1, ext, c, key->data, key->comp,
                                    key->packed, nh, l + K - nh, 1, rescale, rows_pdl);
    const hepa_status sj = _hepa_dev_join(r); /* also after an error */
    if (s != HEPA_OK || (s = sj) != HEPA_OK) return s;
    if (rescale) return dev_rescale_tail(ks, l, out0, out1, t0, t1, tmp, tens);
    return dev_moddown(ks, r, l, out0, out1, t0, t1, tmp, add0, add1, tens, 1, 2);
}

hepa_status _hepa_ks_moddown(const hepa_ks *ks, size_t l, uint64_t *out0, uint64_t *out1,
                             uint64_t *t0, uint64_t *t1, uint64_t *tmp) {
    return moddown(ks, l, out0, out1, t0, t1, tmp, NULL, NULL, NULL, 0);
}

/* Whether pw words at p and qw words at q overlap (compared as addresses: they may come from
 * different allocations). */
static int overlaps2(const uint64_t *p, size_t pw, const uint64_t *q, size_t qw) {
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return a < b + qw * sizeof *q && b < a + pw * sizeof *p;
}
/* Whether out0 or out1 (wo words each) overlaps one of the tensor inputs (wi words each) */
static int outs_overlap(const uint64_t *out0, const uint64_t *out1, size_t wo,
                        const hepa_tensor_in *mul, size_t wi) {
    const uint64_t *in[4] = {mul->a0, mul->a1, mul->b0, mul->b1};
    int alias = 0;
    for (int k = 0; k < 4; ++k)
        alias |= overlaps2(out0, wo, in[k], wi) || overlaps2(out1, wo, in[k], wi);
    return alias;
}

/* (out0, out1) = (add0, add1) + key switch of c, l limbs, with the scratch allocated here. With
 * mul (hepa_mul_relin's tensor inputs, device or host words, l limbs each): c is NULL, and
 * - MODDOWN TENSOR (CUDA backend, n >= 2^13, neither output overlapping an input): d2 alone goes
 *   to scratch first, and ModDown's last NTT pass computes d0 and d1 from a0..b1 as it stores
 *   (they are never written, nor read back). That pass, bound by DRAM at about 2.1 TB/s, reads
 *   a0..b1 (4·l limbs) instead of d0, d1 (2·l), so the saving is smaller than the tensor's
 *   pass: ncu at 2^16/33/P = 3 (H100), tensor 43.0 -> 17.1 µs, ModDown's last pass 54.4 ->
 *   75.9 µs; hepa-bench --ks, same call, two rounds, hepa_mul_relin µs: 2^16/33 P = 1
 *   949.2, 945.2 -> 943.7, 941.6; P = 3 608.7, 608.4 -> 603.9, 604.3; P = 2 727.2, 721.6 ->
 *   721.2, 719.7; P = 4 619.5, 617.1 -> 612.5, 613.3; 2^15/17 203.4 -> 202.6; 2^17/61
 *   5915.8 -> 5894.7;
 * - else the tensor product goes to add0 = out0, add1 = out1 and d2 to scratch first (ModDown's
 *   blocks of out0 would overwrite words that out1's still read).
 * (Measured on an H100 and dropped: d2 alone first, then d0 and d1 on the helper stream beside
 * ModUp, with a full grid or 1, 2 or 4 blocks per SM: 2^16/33/P1 1005 -> 1014 to 1028 µs, P3
 * 678 -> 691 to 700, 2^15/17 214 -> 218 to 226. ModUp's kernels lost more than the 35 µs of d0 /
 * d1 that the overlap hid.)
 * On the device, t0 / t1's Q limbs travel in PACKED Q LIMBS between the fused row pass and
 * ModDown's last pass (5-byte words where the device packs them: modup_inner's pack_q; see
 * ks_rows_inner_kernel's store for the measurements).
 * rescale (MODDOWN RESCALE, where rescale_fused holds; mul set): out0, out1 take level l - 1 and
 * must not overlap the inputs (outs_overlap). */
static size_t ks_scratch_words(const hepa_ks *ks, size_t l, int mul) {
    const size_t E = l + ks->K;
    return (dnum_of(ks, l) * E + 2 * E + 2 * l + (mul ? l : 0)) * ks->ring->n;
}
static hepa_status keyswitch_eager(const hepa_ks *ks, size_t l, uint64_t *out0, uint64_t *out1,
                                   const uint64_t *c, const hepa_ksk *key, const uint64_t *add0,
                                   const uint64_t *add1, const hepa_tensor_in *mul, int rescale,
                                   uint64_t *given) {
    const hepa_ring *r = ks->ring;
    const size_t n = r->n, E = l + ks->K, dn = dnum_of(ks, l);
    const size_t words = ks_scratch_words(ks, l, mul != NULL);
    const int dev = on_device(r);
    uint64_t *buf = given;
    hepa_status s = HEPA_OK;
    if (!given) { /* scratch per call (KS GRAPH passes its kept buffer) */
        if (dev) {
            s = _hepa_dev_alloc(r, (void **)&buf, words * sizeof *buf);
        } else {
            buf = malloc(words * sizeof *buf);
            s = buf ? HEPA_OK : HEPA_ERR_OUT_OF_MEMORY;
        }
    }
    if (s != HEPA_OK) return s;
    uint64_t *ext = buf, *t0 = ext + dn * E * n, *t1 = t0 + E * n, *tmp = t1 + E * n;
    const hepa_tensor_in *tens = NULL; /* MODDOWN TENSOR */
    if (mul) {
        uint64_t *d2 = tmp + 2 * l * n;
        c = d2;
        const size_t w = l * n, wo = rescale ? w - n : w; /* (MODDOWN RESCALE: level l - 1) */
        const int alias = outs_overlap(out0, out1, wo, mul, w);
        if (dev && r->log_n >= 13 && !alias) {
            tens = mul;
            s = _hepa_dev_tensor(r, l, NULL, NULL, d2, mul->a0, mul->a1, mul->b0, mul->b1);
        } else if (dev) {
            s = _hepa_dev_tensor(r, l, out0, out1, d2, mul->a0, mul->a1, mul->b0, mul->b1);
        } else {
            _hepa_host_tensor(r, l, out0, out1, d2, mul->a0, mul->a1, mul->b0, mul->b1);
        }
    }
    if (tens) add0 = add1 = NULL;
    if (rescale && s == HEPA_OK && !tens) s = HEPA_ERR_INVALID_ARGUMENT; /* (callers check) */
    if (s == HEPA_OK) {
        /* HELPER AT 2^15, RESCALE ON THE HELPER (dev_keyswitch's notes) */
        if (dev && (helper_size(r) || rescale))
            s = dev_keyswitch(ks, l, out0, out1, t0, t1, ext, c, tmp, key, add0, add1, tens,
                              rescale);
        else if ((s = modup_inner(ks, l, t0, t1, ext, c, tmp, key, 1)) == HEPA_OK)
            s = moddown(ks, l, out0, out1, t0, t1, tmp, add0, add1, tens, 1);
    }
    if (!given) {
        if (dev)
            _hepa_dev_free(r, buf);
        else
            free(buf);
    }
    return s;
}

/* KS GRAPH (on by default; HEPA_KS_GRAPH=0 in the environment, read once, turns it off). On
 * the CUDA backend at n = 2^15 and 2^16 (the sizes whose key switch forks onto the helper
 * stream: dev_keyswitch), an eager call captures its own launches through a capture view of the
 * ring (its own streams and events: other threads' calls on the ring stay out of the capture),
 * updates the context's executable graph for that call shape and level from the capture
 * (cudaGraphExecUpdate: kernel parameters such as the data pointers may change; where there is
 * none yet or the update is refused, a new instantiation with node priorities), and launches it
 * on the ring's stream. Why: the graph's programmatic edges let the helper chain start as ModUp
 * ends and ModDown's last pass overlap the rows before it, which the eager launches' event waits
 * prevent (bench/results/2026-12-07-h100-ks-eager-graph-trace.md). H100, hepa-bench --ks, same
 * call, one level, hepa_mul_relin median µs, off -> on: 2^16/33 P = 1 912.0 -> 889.0, P = 3
 * 537.3 -> 513.3, P = 2 638.0 -> 611.9, P = 4 524.8 -> 502.6; 2^15/17 185.8 -> 182.3; host time
 * to enqueue 32-35 -> 12.6-15.2 µs (bench/results/2026-12-07-h100-ks-graph-cache.md). One graph
 * per shape and level, because a CKKS program changes level from call to call and an update
 * across levels is refused where the launches differ (as the digits' do): with one per shape
 * every such call instantiated anew. On chains of calls from level L down to 2 (ks_levels),
 * H100, median chain time on the GPU, off -> on, hepa_mul_relin / hepa_mul_relin_rescale (µs):
 * 2^16/33 P = 3 8898 -> 8385 / 9138 -> 8655; P = 1 12353-12428 -> 12286-12330 / 12678-12695 ->
 * 12250-12267; 2^15/17 1725-1744 -> 1699-1720 / 1913-1929 -> 1773-1775; the host's enqueue
 * time 2.5-3.5x lower (bench/results/2026-12-07-h100-ks-graph-levels.md). The scratch is one
 * buffer kept in the context (allocated outside the capture: memory nodes have addresses fixed
 * at instantiation), as large as the largest level switched so far: ks_scratch_words, 283 MiB
 * at 2^16/33, P = 3. Eager instead: while the ring's stream is being captured (the caller's own
 * graph), while another thread uses the cache and, as a fallback, where capturing or launching
 * failed (the work was enqueued by neither). */
static int ks_graph_enabled(void) {
    static atomic_int on = -1;
    int v = atomic_load_explicit(&on, memory_order_relaxed);
    if (v < 0) {
        v = _hepa_env_on_unless_0("HEPA_KS_GRAPH");
        atomic_store_explicit(&on, v, memory_order_relaxed);
    }
    return v;
}
static hepa_status keyswitch_run(const hepa_ks *ks, size_t l, uint64_t *out0, uint64_t *out1,
                                 const uint64_t *c, const hepa_ksk *key, const uint64_t *add0,
                                 const uint64_t *add1, const hepa_tensor_in *mul, int rescale) {
    const hepa_ring *r = ks->ring;
    struct ks_graph *g = ks->graph;
    if (!g || !ks_graph_enabled() || !helper_size(r) || _hepa_dev_capturing(r) ||
        atomic_exchange_explicit(&g->busy, 1, memory_order_acquire))
        return keyswitch_eager(ks, l, out0, out1, c, key, add0, add1, mul, rescale, NULL);
    const size_t words = ks_scratch_words(ks, l, mul != NULL);
    hepa_status s = g->view ? HEPA_OK : _hepa_dev_view_create(r, &g->view);
    if (s == HEPA_OK && words > g->words) {
        _hepa_dev_free(r, g->buf); /* (stream-ordered: after the launches that use it) */
        g->buf = NULL, g->words = 0;
        if ((s = _hepa_dev_alloc(r, (void **)&g->buf, words * sizeof *g->buf)) == HEPA_OK)
            g->words = words;
    }
    int graphed = 0;
    if (s == HEPA_OK) {
        hepa_ring rv = *r; /* the ring and the context as seen through the capture view */
        rv.dev = g->view;
        hepa_ks kv = *ks;
        kv.ring = &rv;
        if (_hepa_dev_graph_begin(&rv) == HEPA_OK) {
            s = keyswitch_eager(&kv, l, out0, out1, c, key, add0, add1, mul, rescale, g->buf);
            void **x = &g->exec[(mul ? 1 + rescale : 0) * (ks->L + 1) + l];
            const hepa_status sg = _hepa_dev_graph_end(&rv, r, x, s == HEPA_OK);
            graphed = s == HEPA_OK && sg == HEPA_OK;
        }
    }
    atomic_store_explicit(&g->busy, 0, memory_order_release);
    /* (any failure above enqueued nothing: the eager call repeats a genuine error) */
    return graphed ? HEPA_OK
                   : keyswitch_eager(ks, l, out0, out1, c, key, add0, add1, mul, rescale, NULL);
}

hepa_status hepa_keyswitch_add(const hepa_ks *ks, hepa_poly *out0, hepa_poly *out1,
                               const hepa_poly *c, const hepa_ksk *key, const hepa_poly *add0,
                               const hepa_poly *add1) {
    if (!ks || !out0 || !out1 || !c || !key) return HEPA_ERR_INVALID_ARGUMENT;
    if (out0 == out1) return HEPA_ERR_INVALID_ARGUMENT;
    /* add_k is read while the other output is written */
    if ((add0 && add0 == out1) || (add1 && add1 == out0)) return HEPA_ERR_INVALID_ARGUMENT;
    const hepa_ring *r = ks->ring;
    const size_t l = c->level;
    if (c->ring != r || out0->ring != r || out1->ring != r || key->ks != ks) return HEPA_ERR_MISMATCH;
    if (l > ks->L || out0->level != l || out1->level != l) return HEPA_ERR_MISMATCH;
    const hepa_poly *adds[2] = {add0, add1};
    for (int k = 0; k < 2; ++k)
        if (adds[k] && (adds[k]->ring != r || adds[k]->level != l)) return HEPA_ERR_MISMATCH;
    if (c->domain != HEPA_DOMAIN_NTT) return HEPA_ERR_DOMAIN;
    for (int k = 0; k < 2; ++k)
        if (adds[k] && adds[k]->domain != HEPA_DOMAIN_NTT) return HEPA_ERR_DOMAIN;
    const hepa_status s =
        keyswitch_run(ks, l, out0->data, out1->data, c->data, key, add0 ? add0->data : NULL,
                      add1 ? add1->data : NULL, NULL, 0);
    if (s == HEPA_OK) out0->domain = out1->domain = HEPA_DOMAIN_NTT;
    return s;
}

/* The argument checks of hepa_mul_relin (down = 0) and hepa_mul_relin_rescale (down = 1: the
 * outputs one level below the inputs, which must be above level 1) */
static hepa_status mul_args(const hepa_ks *ks, const hepa_poly *out0, const hepa_poly *out1,
                            const hepa_poly *const in[4], const hepa_ksk *rlk, size_t down) {
    if (!ks || !out0 || !out1 || !in[0] || !in[1] || !in[2] || !in[3] || !rlk)
        return HEPA_ERR_INVALID_ARGUMENT;
    if (out0 == out1) return HEPA_ERR_INVALID_ARGUMENT;
    const hepa_ring *r = ks->ring;
    const size_t l = in[0]->level;
    if (out0->ring != r || out1->ring != r || rlk->ks != ks) return HEPA_ERR_MISMATCH;
    for (int k = 0; k < 4; ++k)
        if (in[k]->ring != r || in[k]->level != l) return HEPA_ERR_MISMATCH;
    if (l > ks->L) return HEPA_ERR_MISMATCH;
    if (l <= down) return HEPA_ERR_RANGE;
    if (out0->level != l - down || out1->level != l - down) return HEPA_ERR_MISMATCH;
    for (int k = 0; k < 4; ++k)
        if (in[k]->domain != HEPA_DOMAIN_NTT) return HEPA_ERR_DOMAIN;
    return HEPA_OK;
}

hepa_status hepa_mul_relin(const hepa_ks *ks, hepa_poly *out0, hepa_poly *out1, const hepa_poly *a0,
                           const hepa_poly *a1, const hepa_poly *b0, const hepa_poly *b1,
                           const hepa_ksk *rlk) {
    const hepa_poly *const in[4] = {a0, a1, b0, b1};
    hepa_status s = mul_args(ks, out0, out1, in, rlk, 0);
    if (s != HEPA_OK) return s;
    const hepa_tensor_in mul = {a0->data, a1->data, b0->data, b1->data};
    s = keyswitch_run(ks, a0->level, out0->data, out1->data, NULL, rlk, out0->data, out1->data,
                      &mul, 0);
    if (s == HEPA_OK) out0->domain = out1->domain = HEPA_DOMAIN_NTT;
    return s;
}

hepa_status hepa_mul_relin_rescale(const hepa_ks *ks, hepa_poly *out0, hepa_poly *out1,
                                   const hepa_poly *a0, const hepa_poly *a1, const hepa_poly *b0,
                                   const hepa_poly *b1, const hepa_ksk *rlk) {
    const hepa_poly *const in[4] = {a0, a1, b0, b1};
    hepa_status s = mul_args(ks, out0, out1, in, rlk, 1);
    if (s != HEPA_OK) return s;
    const hepa_ring *r = ks->ring;
    const size_t l = a0->level, n = r->n;
    const hepa_tensor_in mul = {a0->data, a1->data, b0->data, b1->data};
    /* (distinct polynomials own distinct buffers; checked all the same) */
    if (rescale_fused(ks, l) && !outs_overlap(out0->data, out1->data, (l - 1) * n, &mul, l * n)) {
        s = keyswitch_run(ks, l, out0->data, out1->data, NULL, rlk, NULL, NULL, &mul, 1);
    } else { /* the two steps, through a level-l pair in scratch (then the rescale's) */
        const int dev = on_device(r);
        const size_t words = 3 * l * n;
        uint64_t *m0 = NULL;
        if (dev) {
            if ((s = _hepa_dev_alloc(r, (void **)&m0, words * sizeof *m0)) != HEPA_OK) return s;
        } else if (!(m0 = malloc(words * sizeof *m0))) {
            return HEPA_ERR_OUT_OF_MEMORY;
        }
        uint64_t *m1 = m0 + l * n, *tmp = m1 + l * n;
        s = keyswitch_run(ks, l, m0, m1, NULL, rlk, m0, m1, &mul, 0);
        if (s == HEPA_OK && dev)
            s = _hepa_dev_rescale(r, l, out0->data, m0, out1->data, m1, 1, tmp);
        if (s == HEPA_OK && !dev) {
            _hepa_host_rescale(r, l, out0->data, m0, 1, tmp);
            _hepa_host_rescale(r, l, out1->data, m1, 1, tmp);
        }
        if (dev)
            _hepa_dev_free(r, m0);
        else
            free(m0);
    }
    if (s == HEPA_OK) out0->domain = out1->domain = HEPA_DOMAIN_NTT;
    return s;
}

hepa_status hepa_keyswitch(const hepa_ks *ks, hepa_poly *out0, hepa_poly *out1, const hepa_poly *c,
                           const hepa_ksk *key) {
    return hepa_keyswitch_add(ks, out0, out1, c, key, NULL, NULL);
}

/* ---- hoisted automorphisms ------------------------------------------------------------------ */

/* HOISTING (hepa_automorphism_hoisted; Halevi–Shoup's hoisted rotations, Lattigo's
 * AutomorphismHoisted). The switch of σ_g(c1) starts with ModUp(σ_g(c1)) = σ_g(ModUp(c1)): in
 * the NTT domain σ_g is the same permutation of the slots for every modulus (_hepa_auto_ntt_src),
 * and in the coefficient domain, where ModUp converts, a signed permutation, which the centred
 * conversion commutes with (the centred value of -x is minus that of x; its floating-point
 * estimate can round the other way only in the ambiguity window of hepa_rns_convert). So c1's
 * ModUp runs once, and rotation k reads the extended digits through σ_(g_k) in its inner product;
 * ModDown and the add of σ_g(c0) follow as in hepa_keyswitch_add. Scratch as for a key switch. */
/* HOIST MIN (CUDA backend): below this many rotations hepa_automorphism_hoisted runs them one at
 * a time. H100, hepa-bench --ks at 2^16/33 (b958699 + the hoisted path, one call), µs: ModUp
 * written whole 771 / 454 / 649 / 409 at P = 1 / 3 / 2 / 4, then each hoisted rotation 616 / 335
 * / 412 / 320 (inner product 462 / 181 / 259 / 157 at its byte floor, ModDown 87 / 118 / 107 /
 * 126, σ of c0), against 876 / 498 / 594 / 487 for a whole rotation on the fused path: hoisting
 * wins from 3 rotations at P = 3 and 4, from 4 at P = 1 and 2. */
#define HEPA_HOIST_MIN_DEVICE 4

static hepa_status hoisted_inner(const hepa_ks *ks, size_t l, uint64_t *t0, uint64_t *t1,
                                 const uint64_t *ext, const hepa_ksk *key, uint64_t g,
                                 uint32_t *src) {
    const hepa_ring *r = ks->ring;
    if (on_device(r))
        return _hepa_dev_ks_inner_auto(r, l, ks->K, dnum_of(ks, l), t0, t1, ext, key->data,
                                       key->comp, key->packed, g);
    for (size_t x = 0; x < r->n; ++x)
        src[x] = (uint32_t)_hepa_auto_ntt_src(x, g, r->log_n);
    host_inner(ks, l, t0, t1, ext, key, src);
    return HEPA_OK;
}

hepa_status hepa_automorphism_hoisted(const hepa_ks *ks, hepa_poly *const *out0,
                                      hepa_poly *const *out1, const hepa_poly *c0,
                                      const hepa_poly *c1, const uint64_t *g,
                                      const hepa_ksk *const *keys, size_t count) {
    if (!ks || !out0 || !out1 || !c0 || !c1 || !g || !keys || count == 0)
        return HEPA_ERR_INVALID_ARGUMENT;
    for (size_t k = 0; k < count; ++k) {
        if (!out0[k] || !out1[k] || !keys[k] || (g[k] & 1) == 0) return HEPA_ERR_INVALID_ARGUMENT;
        /* c0 and c1 are read by every rotation: no output may be one of them or another output */
        if (out0[k] == out1[k]) return HEPA_ERR_INVALID_ARGUMENT;
        const hepa_poly *o[2] = {out0[k], out1[k]};
        for (int p = 0; p < 2; ++p) {
            if (o[p] == c0 || o[p] == c1) return HEPA_ERR_INVALID_ARGUMENT;
            for (size_t k2 = 0; k2 < k; ++k2) /* (quadratic in count: a few hundred at most) */
                if (o[p] == out0[k2] || o[p] == out1[k2]) return HEPA_ERR_INVALID_ARGUMENT;
        }
    }
    const hepa_ring *r = ks->ring;
    const size_t l = c1->level;
    if (c0->ring != r || c1->ring != r || c0->level != l || l > ks->L) return HEPA_ERR_MISMATCH;
    for (size_t k = 0; k < count; ++k)
        if (out0[k]->ring != r || out1[k]->ring != r || out0[k]->level != l ||
            out1[k]->level != l || keys[k]->ks != ks)
            return HEPA_ERR_MISMATCH;
    if (c0->domain != HEPA_DOMAIN_NTT || c1->domain != HEPA_DOMAIN_NTT) return HEPA_ERR_DOMAIN;
    const int dev = on_device(r);
    if (dev && count < HEPA_HOIST_MIN_DEVICE) {
        /* HOIST MIN: one rotation at a time, through the public calls a CKKS rotation makes
         * (the same words): the fused key switch beats a whole ModUp plus the hoisted steps for
         * fewer rotations */
        hepa_poly *x = NULL;
        hepa_status s = hepa_poly_create(&x, r, l);
        for (size_t k = 0; k < count && s == HEPA_OK; ++k) {
            if ((s = hepa_poly_automorphism(out0[k], c0, g[k])) == HEPA_OK &&
                (s = hepa_poly_automorphism(x, c1, g[k])) == HEPA_OK)
                s = hepa_keyswitch_add(ks, out0[k], out1[k], x, keys[k], out0[k], NULL);
        }
        hepa_poly_destroy(x);
        return s;
    }
    const size_t n = r->n, E = l + ks->K, dn = dnum_of(ks, l);
    const size_t words = ks_scratch_words(ks, l, 0);
    uint64_t *buf = NULL;
    uint32_t *src = NULL; /* the host's source map */
    hepa_status s = HEPA_OK;
    if (dev) {
        s = _hepa_dev_alloc(r, (void **)&buf, words * sizeof *buf);
    } else {
        buf = malloc(words * sizeof *buf);
        src = malloc(n * sizeof *src);
        s = buf && src ? HEPA_OK : HEPA_ERR_OUT_OF_MEMORY;
    }
    if (s != HEPA_OK) {
        free(buf), free(src); /* (NULL on the device path) */
        return s;
    }
    uint64_t *ext = buf, *t0 = ext + dn * E * n, *t1 = t0 + E * n, *tmp = t1 + E * n;
    s = _hepa_ks_modup(ks, l, ext, c1->data, tmp);
    for (size_t k = 0; k < count && s == HEPA_OK; ++k) {
        uint64_t *o0 = out0[k]->data, *o1 = out1[k]->data;
        if (dev)
            s = _hepa_dev_automorphism(r, l, o0, c0->data, g[k], 1);
        else
            _hepa_host_automorphism(r, l, o0, c0->data, g[k], 1);
        if (s == HEPA_OK) s = hoisted_inner(ks, l, t0, t1, ext, keys[k], g[k], src);
        if (s == HEPA_OK) s = moddown(ks, l, o0, o1, t0, t1, tmp, o0, NULL, NULL, 0);
        if (s == HEPA_OK) out0[k]->domain = out1[k]->domain = HEPA_DOMAIN_NTT;
    }
    if (dev)
        _hepa_dev_free(r, buf);
    else
        free(buf), free(src);
    return s;
}
