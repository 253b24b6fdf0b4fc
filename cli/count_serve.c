/* cli/count_serve.c: `goscribe count PHOTO --serve`: the count page. */
#include "cli/cli.h"

int cli_count_serve_run(const cli_count_serve *s, const score_count_options *o, score_count_result *r)
{
    (void)s; (void)o; (void)r;
    return cli_not_built("count --serve");
}
