package dap

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// checkSameUser refuses a connection from another user: for a Unix
// socket by its SO_PEERCRED credentials, for loopback TCP by the owner
// of the peer's socket in /proc/net/tcp or /proc/net/tcp6 (as Delve's
// --only-same-user does). A TCP peer on another machine (only with
// --allow-remote) cannot be checked this way and is let through.
func checkSameUser(conn net.Conn) error {
	uid := os.Getuid()
	switch c := conn.(type) {
	case *net.UnixConn:
		raw, err := c.SyscallConn()
		if err != nil {
			return err
		}
		var cred *syscall.Ucred
		var cerr error
		if err := raw.Control(func(fd uintptr) {
			cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
		}); err != nil {
			return err
		}
		if cerr != nil {
			return fmt.Errorf("cannot tell which user connected: %v", cerr)
		}
		return sameUID(int(cred.Uid), uid)
	case *net.TCPConn:
		remote, ok1 := c.RemoteAddr().(*net.TCPAddr)
		local, ok2 := c.LocalAddr().(*net.TCPAddr)
		if !ok1 || !ok2 || !remote.IP.IsLoopback() {
			return nil
		}
		peer, err := tcpPeerUID(remote, local)
		if err != nil {
			return fmt.Errorf("cannot tell which user connected from %s: %v", remote, err)
		}
		return sameUID(peer, uid)
	}
	return nil
}

// sameUID refuses a peer of another user than uid.
func sameUID(peer, uid int) error {
	if peer != uid {
		return fmt.Errorf("refusing a connection from uid %d: only the user running the server (uid %d) may connect", peer, uid)
	}
	return nil
}

// tcpPeerUID finds the uid owning the socket at remote connected to
// local, in /proc/net/tcp and /proc/net/tcp6.
func tcpPeerUID(remote, local *net.TCPAddr) (int, error) {
	for _, f := range []struct {
		path string
		v4   bool
	}{{"/proc/net/tcp", true}, {"/proc/net/tcp6", false}} {
		want, peer := procAddr(remote, f.v4), procAddr(local, f.v4)
		if want == "" || peer == "" {
			continue
		}
		uid, err := scanProcNet(f.path, want, peer)
		if err == nil {
			return uid, nil
		}
		if !os.IsNotExist(err) && err != errNoEntry {
			return 0, err
		}
	}
	return 0, errNoEntry
}

var errNoEntry = fmt.Errorf("no such socket in /proc/net/tcp{,6}")

// scanProcNet returns the uid of the line whose local address is want
// and remote address is peer.
func scanProcNet(path, want, peer string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
		if len(fields) < 8 || fields[1] != want || fields[2] != peer {
			continue
		}
		return strconv.Atoi(fields[7])
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errNoEntry
}

// procAddr renders an address as /proc/net/tcp (v4) or tcp6 shows it:
// the address as 32-bit words in host byte order, in hex, then the
// port. It is "" for an address the table cannot hold.
func procAddr(a *net.TCPAddr, v4 bool) string {
	var ip net.IP
	if v4 {
		ip = a.IP.To4()
	} else {
		ip = a.IP.To16()
	}
	if ip == nil {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(ip); i += 4 {
		fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(ip[i:i+4]))
	}
	fmt.Fprintf(&b, ":%04X", a.Port)
	return b.String()
}
