/* hepa/hepa.h — the whole public API of hepa (homomorphic-encryption polynomial arithmetic). */
#ifndef HEPA_HEPA_H
#define HEPA_HEPA_H

#define HEPA_VERSION_MAJOR 0
#define HEPA_VERSION_MINOR 1
#define HEPA_VERSION_PATCH 0

#include "hepa/status.h"
#include "hepa/modarith.h"
#include "hepa/primes.h"
#include "hepa/ring.h"
#include "hepa/ntt.h"
#include "hepa/poly.h"
#include "hepa/crt.h"
#include "hepa/bigprime.h"
#include "hepa/bigprime_cuda.h"
#include "hepa/dft.h"
#include "hepa/ckks.h"
#include "hepa/rns.h"
#include "hepa/sample.h"
#include "hepa/keyswitch.h"

#endif /* HEPA_HEPA_H */
