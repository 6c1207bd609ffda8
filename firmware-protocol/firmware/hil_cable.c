/*
 * The USB-serial cable of the RP2040 hardware-in-the-loop harness
 * (../hil/rp2040/hil_rp2040.mjs, which runs the firmware in the rp2040js
 * emulator and starts this program): the MCU's UART0 on a pseudo-terminal
 * reached through a symbolic link, which the host daemon opens like a
 * /dev/serial/by-id name. Node has no pseudo-terminals of its own.
 *
 * Usage: hil_cable LINK
 *   standard input    the bytes the MCU sends (lost while unplugged)
 *   standard output   the bytes the host sends
 *   fd 3 (commands)   "u" unplug: close the pty, remove the link (bytes
 *                     the host had not yet sent are lost);
 *                     "r" replug: a new pty, the link pointed at it
 *   fd 4 (replies)    "plugged", "unplugged" or "error TEXT", one a line
 * It starts plugged and ends when standard input or fd 3 closes.
 */
#define _DEFAULT_SOURCE
#define _XOPEN_SOURCE 600
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

static const char *link_path;
static int master = -1, slave = -1;

static void reply(const char *s)
{
    size_t n = strlen(s);
    if (write(4, s, n) != (ssize_t)n) {
        exit(1);
    }
}

static int plug(void)
{
    char tmp[4200];
    struct termios tio;
    const char *name;
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) != 0 || unlockpt(master) != 0 ||
        (name = ptsname(master)) == NULL) {
        return -1;
    }
    /* Keep a handle on the slave (or the master reads EIO while the daemon
     * has it closed) and make it raw at once: no echo, no line editing. */
    slave = open(name, O_RDWR | O_NOCTTY);
    if (slave < 0 || tcgetattr(slave, &tio) != 0) {
        return -1;
    }
    cfmakeraw(&tio);
    if (tcsetattr(slave, TCSANOW, &tio) != 0) {
        return -1;
    }
    fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK);
    snprintf(tmp, sizeof tmp, "%s.new", link_path);
    unlink(tmp);
    if (symlink(name, tmp) != 0 || rename(tmp, link_path) != 0) {
        return -1;
    }
    return 0;
}

static void unplug(void)
{
    unlink(link_path);
    if (master >= 0) {
        close(master);
    }
    if (slave >= 0) {
        close(slave);
    }
    master = slave = -1;
}

/* Writes all of p to fd (blocking), or gives up on an error. */
static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pf = {fd, POLLOUT, 0};
            poll(&pf, 1, 100);
            continue;
        }
        if (w <= 0) {
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int main(int argc, char **argv)
{
    unsigned char buf[4096];
    if (argc != 2) {
        fprintf(stderr, "usage: hil_cable LINK\n");
        return 2;
    }
    link_path = argv[1];
    if (plug() != 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "error pty at %s: %s\n", link_path, strerror(errno));
        reply(msg);
        return 1;
    }
    reply("plugged\n");
    for (;;) {
        struct pollfd pf[3] = {{0, POLLIN, 0}, {3, POLLIN, 0}, {master, POLLIN, 0}};
        ssize_t n;
        if (poll(pf, master >= 0 ? 3 : 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            break;
        }
        if (pf[0].revents) {
            n = read(0, buf, sizeof buf);
            if (n <= 0) {
                break;
            }
            if (master >= 0 && write_all(master, buf, (size_t)n) != 0) {
                /* nobody reads the other end: the bytes are lost, as on a
                 * cable nobody listens to */
            }
        }
        if (pf[1].revents) {
            ssize_t i;
            n = read(3, buf, sizeof buf);
            if (n <= 0) {
                break;
            }
            for (i = 0; i < n; i++) {
                if (buf[i] == 'u') {
                    unplug();
                    reply("unplugged\n");
                } else if (buf[i] == 'r' && master < 0) {
                    if (plug() != 0) {
                        char msg[300];
                        snprintf(msg, sizeof msg, "error replug: %s\n", strerror(errno));
                        reply(msg);
                    } else {
                        reply("plugged\n");
                    }
                }
            }
        }
        if (master >= 0 && pf[2].revents) {
            n = read(master, buf, sizeof buf);
            if (n > 0 && write_all(1, buf, (size_t)n) != 0) {
                break;
            }
        }
    }
    unplug();
    return 0;
}
