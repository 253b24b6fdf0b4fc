#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

const char *gs_test_data(const char *sub)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s", GS_DATA_DIR, sub);
    struct stat st;
    return stat(path, &st) == 0 ? path : NULL;
}

int gs_test_sanitized(void)
{
    const char *s = getenv("GS_SANITIZED");
    return s && *s == '1';
}
