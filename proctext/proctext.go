// Package proctext is the line and field toolkit of the /proc and /sys
// parsers (packages procscan and system): functions that walk the bytes of
// one kernel text file without copying and never allocate, and a bounded
// read of a whole file.
package proctext

import (
	"bytes"
	"errors"
	"io"
)

// NextLine returns the first line of b (without '\n') and the rest.
func NextLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// IsSpace reports an ASCII blank.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// NextField returns the first blank-separated field of b and the rest.
func NextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !IsSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

// ParseUint parses a decimal unsigned number; it reports false for empty
// input, any non-digit, or overflow.
func ParseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (^uint64(0)-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// ParseInt parses a decimal number with an optional leading '-'.
func ParseInt(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	u, ok := ParseUint(b)
	if !ok || u > 1<<63 || (!neg && u == 1<<63) {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// TrimSpace trims ASCII blanks on both ends.
func TrimSpace(b []byte) []byte {
	for len(b) > 0 && IsSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && IsSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// ReadAll appends r's content to b, failing past limit bytes.
func ReadAll(r io.Reader, b []byte, limit int) ([]byte, error) {
	if cap(b) == 0 {
		b = make([]byte, 0, 4096)
	}
	for {
		if len(b) == cap(b) {
			if len(b) >= limit {
				return b, errors.New("file larger than the read limit")
			}
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
	}
}

// MaxInstanceName bounds, in bytes, an instance name made from what a
// /proc or /sys file says (a process's name, a control group's path, a
// mount point): Windows caps an instance name at 1,024 characters, and
// 1,024 bytes of UTF-8 are at most 1,024 UTF-16 characters. Another user
// chooses some of these names (a process's argv[0], a delegated control
// group, a FUSE mount point); every log, status file and alert task that
// carries a name carries at most this much of it.
const MaxInstanceName = 1024

// CutName returns s cut to at most n bytes, on a UTF-8 rune boundary: a
// rune that does not fit whole is left out with the rest, never split.
// Bytes that are not UTF-8 count one each. It does not allocate.
func CutName[S ~string | ~[]byte](s S, n int) S {
	if len(s) <= n {
		return s
	}
	n = max(n, 0)
	// The last rune that starts before n (at most three bytes back,
	// utf8.UTFMax-1) is left out when it ends past n.
	for j := n - 1; j >= 0 && j >= n-3; j-- {
		c := s[j]
		if c&0xC0 == 0x80 {
			continue // a continuation byte
		}
		size := 1
		switch {
		case c >= 0xF8: // no first byte of a rune: one byte
		case c >= 0xF0:
			size = 4
		case c >= 0xE0:
			size = 3
		case c >= 0xC0:
			size = 2
		}
		if j+size <= n || j+size > len(s) {
			break // ends by n, or is no whole rune (bytes count one each)
		}
		whole := true
		for k := j + 1; k < j+size; k++ {
			whole = whole && s[k]&0xC0 == 0x80
		}
		if whole {
			return s[:j]
		}
		break
	}
	return s[:n]
}
