/* tests/testutil.h: shared helpers for the cmocka tests. */
#ifndef TESTUTIL_H
#define TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/gs.h"

/* Path of ../shared/data/SUB if it exists, else NULL (static buffer). Tests
 * that need real data call GS_REQUIRE_DATA, which skips with a message. */
const char *gs_test_data(const char *sub);

#define GS_REQUIRE_DATA(var, sub)                                                  \
    const char *var = gs_test_data(sub);                                           \
    if (!var) {                                                                    \
        print_message("skipped: %s/%s absent (shared data not beside this clone)\n", GS_DATA_DIR, sub); \
        skip();                                                                    \
    }

/* True when running under the sanitizer build (slow): heavy loops may sample. */
int gs_test_sanitized(void);

/* A TCP socket connected to 127.0.0.1:port from the loopback address
 * 127.0.1.SRC (SRC 1..255; 0 = the default 127.0.0.1), as many clients on
 * many machines would be; -1 when it cannot connect. */
int gs_test_connect_loopback(int port, int src);

#endif
