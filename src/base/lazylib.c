/* Libraries opened on first use (see lazylib.h). */
#include "base/lazylib.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

void *kg_lazylib_handle(kg_lazylib *lib)
{
    void *h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
    if (h)
        return h;
    pthread_mutex_lock(&lib->mu);
    if (!lib->tried) {
        lib->tried = true;
        for (size_t i = 0; !h && i < sizeof lib->sonames / sizeof lib->sonames[0] && lib->sonames[i]; i++)
            h = dlopen(lib->sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (!h && !lib->quiet)
            fprintf(stderr, "kgate: cannot load %s: %s\n", lib->label, dlerror());
        __atomic_store_n(&lib->handle, h, __ATOMIC_RELEASE);
    }
    h = lib->handle;
    pthread_mutex_unlock(&lib->mu);
    return h;
}

void *kg_lazylib_sym(kg_lazylib *lib, void **cache, const char *name, bool required)
{
    void *p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (p)
        return p;
    void *h = kg_lazylib_handle(lib);
    p = h ? dlsym(h, name) : NULL;
    if (!p && required) {
        fprintf(stderr, "kgate: %s: %s not found\n", lib->label, name);
        abort();
    }
    __atomic_store_n(cache, p, __ATOMIC_RELEASE);
    return p;
}
