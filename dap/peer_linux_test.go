package dap

import (
	"net"
	"os"
	"path/filepath"
	"testing"
)

// TestProcNetTable: the owner of a socket is read from a /proc/net/tcp
// table by its two addresses, and another user is refused.
func TestProcNetTable(t *testing.T) {
	client := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 51000}
	server := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4711}
	if got := procAddr(client, true); got != "0100007F:C738" {
		t.Fatalf("procAddr = %q, want 0100007F:C738", got)
	}
	if got := procAddr(&net.TCPAddr{IP: net.IPv6loopback, Port: 4711}, false); got != "00000000000000000000000001000000:1267" {
		t.Fatalf("procAddr v6 = %q", got)
	}
	table := `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1267 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 1 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1267 0100007F:C738 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0000000000000000 20 4 30 10 -1
   2: 0100007F:C738 0100007F:1267 01 00000000:00000000 00:00000000 00000000  1001        0 3 1 0000000000000000 20 4 30 10 -1
`
	path := filepath.Join(t.TempDir(), "tcp")
	os.WriteFile(path, []byte(table), 0o644)
	uid, err := scanProcNet(path, procAddr(client, true), procAddr(server, true))
	if err != nil || uid != 1001 {
		t.Fatalf("uid %d, %v; want 1001 (the client's line, not the server's)", uid, err)
	}
	if err := sameUID(1001, 1000); err == nil || err.Error() != "refusing a connection from uid 1001: only the user running the server (uid 1000) may connect" {
		t.Errorf("sameUID(1001, 1000) = %v", err)
	}
	if _, err := scanProcNet(path, "0100007F:0001", procAddr(server, true)); err != errNoEntry {
		t.Errorf("missing socket: %v", err)
	}
}

// TestPeerUIDLoopback: the owner of a loopback client's socket is found
// in /proc/net/tcp{,6} and is this process's user, so it is served.
func TestPeerUIDLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Logf("%s: %v (no such stack here)", addr, err)
			continue
		}
		client, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		server, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		uid, err := tcpPeerUID(server.RemoteAddr().(*net.TCPAddr), server.LocalAddr().(*net.TCPAddr))
		if err != nil || uid != os.Getuid() {
			t.Errorf("%s: peer uid %d, %v; want %d", addr, uid, err, os.Getuid())
		}
		if err := checkSameUser(server); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
		// A socket that is not there is not let through.
		bogus := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
		if _, err := tcpPeerUID(bogus, bogus); err == nil {
			t.Errorf("found an owner for a socket that does not exist")
		}
		client.Close()
		server.Close()
		ln.Close()
	}
}
