/* kg_gnutls_sym (gnutls_lazy.h): GnuTLS symbols from the library libmicrohttpd brought in. */
#include "server/gnutls_lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *lib;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void open_lib(void)
{
    /* Debian bookworm's ABI (libgnutls30); dlopen of a loaded soname returns that instance */
    lib = dlopen("libgnutls.so.30", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        lib = dlopen("libgnutls.so", RTLD_NOW | RTLD_LOCAL);
}

void *kg_gnutls_sym(const char *name)
{
    pthread_once(&once, open_lib);
    void *p = lib ? dlsym(lib, name) : NULL;
    if (!p) {
        fprintf(stderr, "kgate: GnuTLS: %s not found (%s)\n", name, lib ? "symbol" : dlerror());
        abort();
    }
    return p;
}
