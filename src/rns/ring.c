/* src/rns/ring.c — ring context: validation, NTT tables per modulus, backend choice, and the
 * host-array entry point hepa_negacyclic_mul. */
#include <stdlib.h>
#include <string.h>

#include "device/internal.h"
#include "hepa/primes.h"
#include "ntt/internal.h"
#include "rns/internal.h"

static int valid_n(size_t n) {
    return n >= HEPA_RING_MIN_N && n <= HEPA_RING_MAX_N && (n & (n - 1)) == 0;
}

void hepa_ring_destroy(hepa_ring *ring) {
    if (!ring) return;
    if (ring->dev) _hepa_dev_ring_free(ring);
    if (ring->ntt)
        for (size_t i = 0; i < ring->num_moduli; ++i) hepa_ntt_tables_destroy(ring->ntt[i]);
    free(ring->ntt);
    free(ring->mods);
    free(ring->moduli);
    free(ring);
}

hepa_status hepa_ring_create(hepa_ring **out, size_t n, const uint64_t *moduli,
                             size_t num_moduli, hepa_backend backend) {
    if (!out || !moduli || !valid_n(n)) return HEPA_ERR_INVALID_ARGUMENT;
    if (num_moduli < 1 || num_moduli > HEPA_RING_MAX_MODULI) return HEPA_ERR_INVALID_ARGUMENT;
    for (size_t i = 0; i < num_moduli; ++i) {
        const uint64_t q = moduli[i];
        if (q >= HEPA_MODULUS_LIMIT || q % (2 * n) != 1 || !hepa_is_prime(q))
            return HEPA_ERR_INVALID_ARGUMENT;
        for (size_t j = 0; j < i; ++j)
            if (moduli[j] == q) return HEPA_ERR_INVALID_ARGUMENT;
    }

    /* Backend: CUDA needs a usable GPU (and a build with the CUDA code); AUTO takes it when
     * there is one. */
    hepa_backend chosen;
    switch (backend) {
    case HEPA_BACKEND_AUTO:
        chosen = hepa_device_count() > 0 ? HEPA_BACKEND_CUDA : HEPA_BACKEND_CPU;
        break;
    case HEPA_BACKEND_CPU: chosen = HEPA_BACKEND_CPU; break;
    case HEPA_BACKEND_CUDA:
        if (hepa_device_count() == 0) return HEPA_ERR_NO_DEVICE;
        chosen = HEPA_BACKEND_CUDA;
        break;
    default: return HEPA_ERR_INVALID_ARGUMENT;
    }

    hepa_ring *r = calloc(1, sizeof *r);
    if (!r) return HEPA_ERR_OUT_OF_MEMORY;
    r->n = n;
    while (((size_t)1 << r->log_n) < n) ++r->log_n;
    r->num_moduli = num_moduli;
    r->backend = chosen;
    r->moduli = malloc(num_moduli * sizeof *r->moduli);
    r->mods = malloc(num_moduli * sizeof *r->mods);
    r->ntt = calloc(num_moduli, sizeof *r->ntt);
    if (!r->moduli || !r->mods || !r->ntt) {
        hepa_ring_destroy(r);
        return HEPA_ERR_OUT_OF_MEMORY;
    }
    memcpy(r->moduli, moduli, num_moduli * sizeof *moduli);
    for (size_t i = 0; i < num_moduli; ++i) {
        r->mods[i] = hepa_modulus_make(moduli[i]);
        hepa_status s = hepa_ntt_tables_create(&r->ntt[i], n, moduli[i]);
        if (s != HEPA_OK) {
            hepa_ring_destroy(r);
            return s;
        }
    }
    if (chosen == HEPA_BACKEND_CUDA) {
        hepa_status s = _hepa_dev_ring_init(r);
        if (s != HEPA_OK) {
            hepa_ring_destroy(r);
            return s;
        }
    }
    *out = r;
    return HEPA_OK;
}

size_t hepa_ring_n(const hepa_ring *ring) { return ring->n; }
size_t hepa_ring_num_moduli(const hepa_ring *ring) { return ring->num_moduli; }
uint64_t hepa_ring_modulus(const hepa_ring *ring, size_t i) { return ring->moduli[i]; }
hepa_backend hepa_ring_backend(const hepa_ring *ring) { return ring->backend; }

int _hepa_limbs_ok(const hepa_ring *ring, size_t level, const uint64_t *a) {
    for (size_t i = 0; i < level; ++i)
        if (!hepa_residues_ok(a + i * ring->n, ring->n, ring->moduli[i])) return 0;
    return 1;
}

void *hepa_ring_cuda_stream(const hepa_ring *ring) {
    return ring && ring->dev ? ring->dev->stream : NULL;
}

hepa_status hepa_ring_sync(const hepa_ring *ring) {
    if (!ring) return HEPA_ERR_INVALID_ARGUMENT;
    return ring->backend == HEPA_BACKEND_CUDA ? _hepa_dev_sync(ring) : HEPA_OK;
}

/* Device path of hepa_negacyclic_mul: upload both inputs into one scratch buffer, the product
 * in place there (_hepa_dev_ntt_mul), download, wait. */
static hepa_status negacyclic_mul_cuda(const hepa_ring *ring, uint64_t *out, const uint64_t *a,
                                       const uint64_t *b) {
    const size_t L = ring->num_moduli, words = L * ring->n, bytes = words * sizeof(uint64_t);
    uint64_t *buf = NULL;
    hepa_status s = _hepa_dev_alloc(ring, (void **)&buf, 2 * bytes);
    if (s != HEPA_OK) return s;
    uint64_t *da = buf, *db = buf + words;
    if ((s = _hepa_dev_copy(ring, da, a, bytes, 0)) == HEPA_OK &&
        (s = _hepa_dev_copy(ring, db, b, bytes, 0)) == HEPA_OK &&
        (s = _hepa_dev_ntt_mul(ring, L, da, da, db, da, db)) == HEPA_OK &&
        (s = _hepa_dev_copy(ring, out, da, bytes, 1)) == HEPA_OK)
        s = _hepa_dev_sync(ring);
    _hepa_dev_free(ring, buf);
    return s;
}

hepa_status hepa_negacyclic_mul(const hepa_ring *ring, uint64_t *out, const uint64_t *a,
                                const uint64_t *b) {
    if (!ring || !out || !a || !b) return HEPA_ERR_INVALID_ARGUMENT;
    const size_t L = ring->num_moduli;
    if (!_hepa_limbs_ok(ring, L, a) || !_hepa_limbs_ok(ring, L, b))
        return HEPA_ERR_INVALID_ARGUMENT;
    if (ring->backend == HEPA_BACKEND_CUDA) return negacyclic_mul_cuda(ring, out, a, b);
    /* scratch holds the transform of a (or of b when a is the output), so out may alias
     * either input */
    uint64_t *scratch = malloc(L * ring->n * sizeof *scratch);
    if (!scratch) return HEPA_ERR_OUT_OF_MEMORY;
    _hepa_host_negacyclic_mul(ring, L, out, a, b, scratch);
    free(scratch);
    return HEPA_OK;
}
