package dap

// This file decides who may talk to a listening server: the address it
// binds, the peer check on every connection, one client at a time, the
// handshake timeout and the shared token.

import (
	"bytes"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"time"

	dap "github.com/google/go-dap"
)

// DefaultHandshakeTimeout is how long a client may take from connecting
// to a successful launch or attach before it is dropped.
const DefaultHandshakeTimeout = 10 * time.Second

// refusalReadTimeout bounds how long a refused client is read, to answer
// its first request with the refusal.
const refusalReadTimeout = 2 * time.Second

// ErrNotLoopback is returned by Listen for an address other machines can
// reach when remote clients are not allowed.
var ErrNotLoopback = errors.New("not a loopback address")

// ListenAddr completes a listen address: without a host it is loopback
// ("4000" and ":4000" mean 127.0.0.1:4000); "unix:PATH" is a Unix socket.
func ListenAddr(addr string) (network, address string) {
	if p, ok := strings.CutPrefix(addr, "unix:"); ok {
		return "unix", p
	}
	if !strings.Contains(addr, ":") {
		return "tcp", "127.0.0.1:" + addr
	}
	if strings.HasPrefix(addr, ":") {
		return "tcp", "127.0.0.1" + addr
	}
	return "tcp", addr
}

// Listen listens at addr (see ListenAddr). Unless allowRemote is set it
// refuses an address that is not loopback (0.0.0.0, a LAN address, a
// host name that resolves to one): anyone who can connect to a debugger
// can run code as the user running it.
func Listen(addr string, allowRemote bool) (net.Listener, error) {
	network, address := ListenAddr(addr)
	ln, err := net.Listen(network, address)
	if err != nil {
		return nil, err
	}
	if network == "tcp" && !allowRemote {
		if a, ok := ln.Addr().(*net.TCPAddr); !ok || !a.IP.IsLoopback() {
			ln.Close()
			return nil, fmt.Errorf("refusing to listen at %s: %w (a client could run code as %s; pass --allow-remote to accept other machines, preferably with --token-file)",
				addr, ErrNotLoopback, userName())
		}
	}
	return ln, nil
}

// RemoteWarning is the warning to print when a server listens with
// remote clients allowed.
func RemoteWarning(ln net.Listener, token bool) string {
	w := fmt.Sprintf("WARNING: listening at %s with --allow-remote: any machine that can reach it can debug the program and run code as %s", ln.Addr(), userName())
	if !token {
		w += "; no --token-file is set, so nothing authenticates clients"
	}
	return w + ".\n"
}

func userName() string {
	if u := os.Getenv("USER"); u != "" {
		return "user " + u
	}
	return fmt.Sprintf("uid %d", os.Getuid())
}

// ReadTokenFile reads a shared token: the file's content without
// surrounding white space, which must not be empty. A file that others
// may read is refused (chmod 600 it).
func ReadTokenFile(path string) (string, error) {
	st, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s: the token file is readable by others (mode %v); make it private with chmod 600", path, st.Mode().Perm())
	}
	if !st.Mode().IsRegular() || st.Size() > 4096 {
		return "", fmt.Errorf("%s: a token file must be a regular file of at most 4096 bytes", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("%s: the token file is empty", path)
	}
	return tok, nil
}

// tokenOK reports whether a launch or attach carries the server's token
// (always, when the server has none).
func (s *Server) tokenOK(got string) bool {
	if s.Token == "" {
		return true
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.Token)) == 1
}

// checkPeer returns why conn may not be served, or nil: on loopback
// (and Unix sockets) the peer must be the user running the server.
func (s *Server) checkPeer(conn net.Conn) error {
	return checkSameUser(conn)
}

// refusing bounds the clients being refused at once: past it (a flood
// of connections), a client is closed without a word.
var refusing = make(chan struct{}, 16)

// refuse tells a client it will not be served, answering its first
// request (if it sends one soon) with an error, and closes conn.
func refuse(conn net.Conn, msg string) {
	defer conn.Close()
	select {
	case refusing <- struct{}{}:
		defer func() { <-refusing }()
	default:
		return
	}
	c := newSession(&Server{}, conn)
	c.sendOutput("stderr", "nlangdbg dap: "+msg+"\n")
	conn.SetReadDeadline(time.Now().Add(refusalReadTimeout))
	content, err := dap.ReadBaseMessage(c.r)
	if err != nil {
		return
	}
	if m, err := dap.DecodeProtocolMessage(content); err == nil {
		if req, ok := m.(dap.RequestMessage); ok {
			c.sendError(req, errRefused, msg)
		}
	}
}

// oneClient wraps the connection being served: closing it frees the
// server for the next client, before the client can see the close.
type oneClient struct {
	net.Conn
	busy *atomic.Bool
	done atomic.Bool
}

func (c *oneClient) Close() error {
	if c.done.CompareAndSwap(false, true) {
		c.busy.Store(false)
	}
	return c.Conn.Close()
}

// handshakeDone ends the handshake: the client launched or attached,
// and may now be silent for as long as it likes.
func (c *session) handshakeDone() {
	if c.handshake != nil {
		c.handshake.SetReadDeadline(time.Time{})
		c.handshake = nil
	}
}

// checkToken answers req and closes the session if args lacks the
// server's token; it reports whether the request may go on.
func (c *session) checkToken(req dap.RequestMessage, token string) bool {
	if c.srv.tokenOK(token) {
		return true
	}
	cmd := req.GetRequest().Command
	c.sendError(req, errToken, fmt.Sprintf("%s: wrong or missing token (the server was started with --token-file; pass the token in the %q argument, or use nlangdbg attach --token-file)", cmd, "token"))
	c.disconnected = true
	c.closeSoon()
	return false
}

// maxHeaderLine bounds a header line of the base protocol; go-dap
// buffers one up to its '\r' without limit, so the reader it is given
// counts the bytes since the last '\r' (a body is at most 4 MiB, which
// go-dap checks, and the next header follows it).
const maxHeaderLine = 4<<20 + 4096

var errHeaderTooLong = errors.New("a header line longer than 4 MiB without \\r")

// headerLimitReader fails once more than maxHeaderLine bytes come
// without a '\r'.
type headerLimitReader struct {
	r     io.Reader
	since int
}

func (h *headerLimitReader) Read(p []byte) (int, error) {
	if h.since > maxHeaderLine {
		return 0, errHeaderTooLong
	}
	if room := maxHeaderLine + 1 - h.since; len(p) > room {
		p = p[:room]
	}
	n, err := h.r.Read(p)
	if i := bytes.LastIndexByte(p[:n], '\r'); i >= 0 {
		h.since = n - 1 - i
	} else {
		h.since += n
	}
	return n, err
}
