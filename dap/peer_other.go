//go:build !linux

package dap

import "net"

// checkSameUser lets every connection through: outside Linux the peer's
// user is not checked (use --token-file).
func checkSameUser(conn net.Conn) error { return nil }
