package server

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"
	"sync"
)

// peerKey is the context key of a connection's *peer (http.Server's
// ConnContext), set on servers that let anonymous callers in or limit
// the rate of failed attempts.
type peerKey struct{}

// peer finds, once per connection, the local user who opened a loopback
// connection: anonymous callers are told apart by it, so that one local
// user cannot take the slots or the rate of all the others, which would
// be all one identity ("anonymous") otherwise.
type peer struct {
	conn net.Conn
	once sync.Once
	uid  string // "uid:N", "" when unknown
}

func withPeer(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, peerKey{}, &peer{conn: c})
}

// peerUser is "uid:N" of the user whose process opened the request's
// connection, "" when it cannot be told (no /proc, not loopback).
func peerUser(ctx context.Context) string {
	p, _ := ctx.Value(peerKey{}).(*peer)
	if p == nil {
		return ""
	}
	p.once.Do(func() {
		client, err1 := netip.ParseAddrPort(p.conn.RemoteAddr().String())
		server, err2 := netip.ParseAddrPort(p.conn.LocalAddr().String())
		if err1 != nil || err2 != nil || !client.Addr().Unmap().IsLoopback() {
			return
		}
		if uid, ok := socketOwner(client, server); ok {
			p.uid = "uid:" + uid
		}
	})
	return p.uid
}

// socketOwner finds, in the kernel's table of TCP sockets
// (/proc/net/tcp, tcp6), the socket whose own address is local and
// whose peer is remote (the client's end of a loopback connection), and
// returns the uid that created it. The kernel sets that uid; the client
// cannot choose it.
func socketOwner(local, remote netip.AddrPort) (string, bool) {
	file := "/proc/net/tcp"
	if !local.Addr().Is4() {
		file = "/proc/net/tcp6"
	}
	want := procAddr(local) + " " + procAddr(remote)
	f, err := os.Open(file)
	if err != nil {
		return "", false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) > 7 && fs[1]+" "+fs[2] == want {
			return fs[7], true
		}
	}
	return "", false
}

// procAddr writes an address and port as /proc/net/tcp does: the
// address as 32-bit words in the machine's byte order, in hexadecimal,
// then ":" and the port.
func procAddr(ap netip.AddrPort) string {
	var b strings.Builder
	a := ap.Addr()
	if a.Is4() {
		x := a.As4()
		fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(x[:]))
	} else {
		x := a.As16()
		for i := 0; i < 16; i += 4 {
			fmt.Fprintf(&b, "%08X", binary.NativeEndian.Uint32(x[i:]))
		}
	}
	fmt.Fprintf(&b, ":%04X", ap.Port())
	return b.String()
}
