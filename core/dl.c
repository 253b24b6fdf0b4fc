/* core/dl.c: optional libraries opened at run time, so that goscribe runs
 * (and says what is missing) without the libraries of features not used. */
#include "core/gs.h"

#include <dlfcn.h>
#include <string.h>

void *gs_dl_open(const char *const *sonames, const char *name, const char *package, gs_error *err)
{
    for (const char *const *n = sonames; n && *n; n++) {
        void *lib = dlopen(*n, RTLD_NOW | RTLD_LOCAL);
        if (lib) return lib;
    }
    gs_error_set(err, GS_ERR_IO, "%s not installed (Debian package %s)", name, package);
    return NULL;
}

bool gs_dl_fn(void *lib, const char *name, void *fn_slot, size_t slot_size)
{
    void *sym = lib ? dlsym(lib, name) : NULL;
    if (!sym || slot_size != sizeof sym) return false;
    /* POSIX lets the void * from dlsym become a function pointer this way. */
    memcpy(fn_slot, &sym, sizeof sym);
    return true;
}

void gs_dl_close(void *lib)
{
    if (lib) dlclose(lib);
}
