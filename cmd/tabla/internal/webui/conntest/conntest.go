// Package conntest looks at a raw connection to the page server from a
// test's side: whether the server still holds it open (the slow-client
// tests of webui and runcmd, the event-stream budget of webui).
package conntest

import (
	"net"
	"syscall"
	"testing"
)

// StillOpen tells without waiting whether the server has not closed c
// (nothing to read and no end of stream).
func StillOpen(t testing.TB, c net.Conn) bool {
	t.Helper()
	var b [1]byte
	return look(t, c, b[:], syscall.MSG_PEEK)
}

// Drain reads and discards what c has received, without waiting, and
// tells whether the server still holds c open (no end of stream, no
// reset). Unlike StillOpen it sees past data the server sent before it
// closed, such as an event stream's events.
func Drain(t testing.TB, c net.Conn) bool {
	t.Helper()
	var b [4096]byte
	return look(t, c, b[:], 0)
}

// look receives into b with flags (MSG_PEEK: once, leaving the data;
// else until nothing is left) without waiting, and tells whether c is
// still open: the last receive found nothing yet (EAGAIN).
func look(t testing.TB, c net.Conn, b []byte, flags int) bool {
	t.Helper()
	rc, err := c.(*net.TCPConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	open := false
	err = rc.Read(func(fd uintptr) bool {
		for {
			n, _, err := syscall.Recvfrom(int(fd), b, flags|syscall.MSG_DONTWAIT)
			if n > 0 && flags&syscall.MSG_PEEK == 0 {
				continue
			}
			open = n < 0 && err == syscall.EAGAIN
			return true
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return open
}
