/* kg_gnutls_sym (gnutls_lazy.h): GnuTLS symbols from the library libmicrohttpd brought in. */
#include "server/gnutls_lazy.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/lazylib.h"

/* Debian bookworm's ABI (libgnutls30); dlopen of a loaded soname returns that instance */
static kg_lazylib lib = KG_LAZYLIB("GnuTLS", true, "libgnutls.so.30", "libgnutls.so");

void *kg_gnutls_sym(const char *name)
{
    void *h = kg_lazylib_handle(&lib);
    void *p = h ? dlsym(h, name) : NULL;
    if (!p) {
        fprintf(stderr, "kgate: GnuTLS: %s not found (%s)\n", name, h ? "symbol" : "library");
        abort();
    }
    return p;
}
