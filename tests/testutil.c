#include "tests/testutil.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

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

int gs_test_connect_loopback(int port, int src)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in me = {0}, sa = {0};
    me.sin_family = sa.sin_family = AF_INET;
    me.sin_addr.s_addr = htonl(0x7f000100u | (uint32_t)(src & 0xff));
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if ((src && bind(fd, (struct sockaddr *)&me, sizeof me)) || connect(fd, (struct sockaddr *)&sa, sizeof sa)) {
        close(fd);
        return -1;
    }
    return fd;
}
