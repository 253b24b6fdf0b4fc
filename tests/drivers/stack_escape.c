/* A pointer into a stack frame that has returned, read after the return:
 * the class of bug gtp's player names had (cli_record_prepare's local
 * record_cmd read by record_create).  Built with the sanitizers, it must
 * stop with "stack-use-after-return" when the ASan run is configured to
 * detect it (ASAN_OPTIONS detect_stack_use_after_return=1); without that
 * option it reads the dead frame and exits 0. */
#include <stdio.h>
#include <string.h>

static const char *volatile escaped;

__attribute__((noinline)) static void fill_names(void)
{
    char names[32];
    snprintf(names, sizeof names, "Ann 3k");
    /* the bug under test, on purpose: a local's address outlives it */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
    escaped = names;
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic pop
#endif
}

int main(void)
{
    fill_names();
    char copy[32];
    memcpy(copy, (const char *)escaped, sizeof copy);
    printf("read %d bytes of a returned frame\n", (int)strnlen(copy, sizeof copy));
    return 0;
}
