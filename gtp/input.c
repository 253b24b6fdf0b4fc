/* gtp/input.c: lines from a file descriptor (the controller's stdin, the
 * operator's file) read without blocking the caller longer than it asks,
 * in a fixed buffer: a hostile controller sending one endless line costs
 * GTP_INPUT_BYTES, never more. */
#include "gtp/gtp_internal.h"

#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

void gtp_input_init(gtp_input *in, int fd)
{
    memset(in, 0, sizeof *in);
    in->fd = fd;
}

void gtp_input_fill(gtp_input *in, int wait_ms)
{
    while (!in->eof && in->len < sizeof in->buf) {
        struct pollfd p = {in->fd, POLLIN, 0};
        int pr = poll(&p, 1, wait_ms);
        if (pr < 0 && errno == EINTR) return; /* a signal: the caller looks at its flags */
        if (pr <= 0) {
            if (pr < 0) in->eof = true;
            return;
        }
        ssize_t r = read(in->fd, in->buf + in->len, sizeof in->buf - in->len);
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) return;
        if (r <= 0) {
            in->eof = true; /* end of file, or a read error: nothing more will come */
            return;
        }
        in->len += (size_t)r;
        wait_ms = 0; /* take what is there, then return */
    }
}

/* Drops the first n bytes of the buffer. */
static void input_drop(gtp_input *in, size_t n)
{
    memmove(in->buf, in->buf + n, in->len - n);
    in->len -= n;
}

int gtp_input_line(gtp_input *in, char *out, bool *too_long)
{
    for (;;) {
        char *nl = memchr(in->buf, '\n', in->len);
        if (in->dropping) {
            /* the rest of a line already answered as too long */
            if (!nl) {
                in->len = 0;
                return in->eof ? -1 : 0;
            }
            input_drop(in, (size_t)(nl - in->buf) + 1);
            in->dropping = false;
            continue;
        }
        size_t n = nl ? (size_t)(nl - in->buf) : in->len;
        bool cut = n > GTP_MAX_LINE;
        if (!nl && !cut && !(in->eof && in->len)) return in->eof ? -1 : 0;
        size_t keep = cut ? GTP_MAX_LINE : n, o = 0;
        for (size_t i = 0; i < keep; i++)
            if (in->buf[i]) out[o++] = in->buf[i]; /* a NUL is a control character: dropped (GTP 3.1) */
        out[o] = 0;
        *too_long = cut;
        if (nl) {
            input_drop(in, n + 1);
        } else {
            in->len = 0;
            in->dropping = cut && !in->eof;
        }
        return 1;
    }
}

bool gtp_input_interrupt(gtp_input *in)
{
    size_t start = 0;
    while (start < in->len) {
        char *nl = memchr(in->buf + start, '\n', in->len - start);
        if (!nl) break;
        size_t n = (size_t)(nl - (in->buf + start));
        const char *s = in->buf + start;
        size_t a = 0, z = n;
        while (a < z && isspace((unsigned char)s[a])) a++;
        while (z > a && isspace((unsigned char)s[z - 1])) z--;
        if (z - a == 11 && !memcmp(s + a, "# interrupt", 11)) {
            memmove(in->buf + start, nl + 1, in->len - (start + n + 1));
            in->len -= n + 1;
            return true;
        }
        start += n + 1;
    }
    return false;
}
