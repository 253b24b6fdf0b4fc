/* cli/bench_record.c: `goscribe bench record` (not built yet). */
#include "cli/cli.h"

int bench_record(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_not_built("bench record");
}
