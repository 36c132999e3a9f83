/* A consumer of the installed hepa: calls hepa_negacyclic_mul with its exact signature and
 * checks x^(n-1) * x = -1 in Z_q[x]/(x^n + 1). Returns 0 on success. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hepa/hepa.h>

enum { n = 64 };

int main(int argc, char **argv) {
    const char *name = argc > 0 ? argv[0] : "app", *slash = strrchr(name, '/');
    if (slash) name = slash + 1; /* app or app_static */
    /* the exact signature other code links against */
    hepa_status (*mul)(const hepa_ring *, uint64_t *, const uint64_t *, const uint64_t *) =
        hepa_negacyclic_mul;

    uint64_t q;
    hepa_ring *ring = NULL;
    hepa_status st = hepa_primes_ntt(&q, 1, 30, n);
    if (st == HEPA_OK) st = hepa_ring_create(&ring, n, &q, 1, HEPA_BACKEND_CPU);
    if (st != HEPA_OK) {
        fprintf(stderr, "consumer: %s\n", hepa_status_string(st));
        return 1;
    }
    uint64_t a[n] = {0}, b[n] = {0}, c[n];
    a[n - 1] = 1; /* x^(n-1) */
    b[1] = 1;     /* x */
    st = mul(ring, c, a, b);
    int ok = st == HEPA_OK && c[0] == q - 1;
    for (int i = 1; i < n; ++i)
        ok = ok && c[i] == 0;
    hepa_ring_destroy(ring);
    printf("%s: hepa %d.%d.%d, x^%d * x = -1 mod (x^%d + 1, %llu): %s\n", name, HEPA_VERSION_MAJOR,
           HEPA_VERSION_MINOR, HEPA_VERSION_PATCH, n - 1, n, (unsigned long long)q,
           ok ? "ok" : "WRONG");
    return ok ? 0 : 1;
}
