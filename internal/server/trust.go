package server

import (
	"fmt"
	"io"
	"os"
	"syscall"
)

// fileKind says what a file is for, which decides the checks it must pass.
type fileKind int

const (
	// kindConfig: the web configuration, a certificate or a CA: nobody
	// but its owner may change it.
	kindConfig fileKind = iota
	// kindSecret: a private key: nobody but its owner may change or read it.
	kindSecret
)

// readTrusted reads a file the server trusts (the web configuration,
// certificates, keys), after checking the file it opened: a regular file,
// owned by uid (the serving user) or root, not writable by group or
// others, and for a secret not readable by them either. Symbolic links
// are followed (certificate tools rotate through them): the file checked
// is the one read. At most max bytes are read.
func readTrusted(path, what string, kind fileKind, uid int, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, unwrapPathError(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, unwrapPathError(err))
	}
	if err := checkTrusted(path, what, fi, kind, uid); err != nil {
		return nil, err
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s %s: %d bytes, more than the %d allowed", what, path, fi.Size(), max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", what, path, unwrapPathError(err))
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s %s: more than the %d bytes allowed", what, path, max)
	}
	return b, nil
}

// checkTrusted applies readTrusted's checks to a file's status.
func checkTrusted(path, what string, fi os.FileInfo, kind fileKind, uid int) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %s: not a regular file (%s)", what, path, fi.Mode().Type())
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s %s: cannot read its owner", what, path)
	}
	if int(st.Uid) != uid && st.Uid != 0 {
		return fmt.Errorf("%s %s: owned by uid %d, not by the serving user (uid %d) or root: another user could change it; chown %d %s", what, path, st.Uid, uid, uid, path)
	}
	perm := fi.Mode().Perm()
	if perm&0o022 != 0 {
		return fmt.Errorf("%s %s: mode %04o lets %s change it; chmod go-w %s", what, path, perm, others(perm&0o022), path)
	}
	if kind == kindSecret && perm&0o044 != 0 {
		return fmt.Errorf("%s %s: mode %04o lets %s read the private key; chmod 600 %s", what, path, perm, others(perm&0o044), path)
	}
	return nil
}

// others names who the group and other bits of mode let in.
func others(mode os.FileMode) string {
	g, o := mode&0o070 != 0, mode&0o007 != 0
	switch {
	case g && o:
		return "its group and other users"
	case g:
		return "its group"
	}
	return "other users"
}

// unwrapPathError drops the path an *os.PathError repeats.
func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// LoadConfig reads and checks a web configuration file: the file must
// pass the trust checks for the serving user uid (see readTrusted), then
// parse (ParseConfig).
func LoadConfig(path string, uid int) (*Config, error) {
	b, err := readTrusted(path, "web configuration", kindConfig, uid, MaxConfigBytes)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, b)
}

// ReadTrustedConfig reads another configuration file of the server (the
// /metrics export options, say) under the checks of the web configuration
// (readTrusted): a regular file owned by uid or root that nobody else may
// change, of at most max bytes. what names the file in errors.
func ReadTrustedConfig(path, what string, uid int, max int64) ([]byte, error) {
	return readTrusted(path, what, kindConfig, uid, max)
}
