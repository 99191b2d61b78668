// Package exepages releases the pages of the program's own executable that
// its start-up mapped and its work does not need mapped.
//
// A Go program runs the initialisation of every package it links before
// main. perfc is one binary that links SQLite, PostgreSQL, gRPC and
// OpenTelemetry beside its collectors, so start-up touches code and
// read-only data all over a 45 MB executable, and the kernel maps the
// 64 KiB around each page touched (fault-around): a collecting typeperf
// had about 18 MB of the binary mapped, of which its work uses about 10.
// Those pages are clean file pages, shared with every other process
// running the binary, but they count in each process's resident set, and
// mapped pages are the last the kernel reclaims.
//
// Release unmaps them (madvise MADV_DONTNEED): they stay in the page cache
// as before, and what the program runs afterwards maps again on first use
// (a minor fault). Only the executable's private read-only mappings are
// released whose pages are all the file's (smaps' Anonymous is 0): a
// mapping with a page of its own (a read-only segment the loader
// relocated, a debugger's breakpoint) keeps it, since dropping it would
// lose what was written. Writable mappings (the program's variables) and
// other files are never touched.
package exepages

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// maxSmaps bounds what Release reads of /proc/self/smaps (a Go program's
// is some 25 KB).
const maxSmaps = 1 << 20

// span is a mapping of the executable that Release may release.
type span struct {
	start, end uint64
}

// Release releases the executable's clean read-only mappings and returns
// how many bytes of them were resident (mapped) before.
func Release() (int64, error) {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, err
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSmaps+1))
	if err != nil {
		return 0, fmt.Errorf("/proc/self/smaps: %w", err)
	}
	if len(b) > maxSmaps {
		return 0, fmt.Errorf("/proc/self/smaps: longer than %d bytes", maxSmaps)
	}
	spans, resident, err := releasable(b, exe)
	if err != nil {
		return 0, err
	}
	for _, s := range spans {
		if _, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(s.start), uintptr(s.end-s.start), unix.MADV_DONTNEED); e != 0 {
			return 0, fmt.Errorf("madvise %#x-%#x: %w", s.start, s.end, e)
		}
	}
	return resident, nil
}

// releasable reads smaps (the text of /proc/PID/smaps) and returns the
// mappings of the file at path exe that can be released: private, not
// writable, and with no page of their own (Anonymous 0); resident is how
// many bytes of them are mapped (Rss).
func releasable(smaps []byte, exe string) (spans []span, resident int64, err error) {
	if exe == "" {
		return nil, 0, errors.New("no executable path")
	}
	var cur *span
	var rss, anon int64
	flush := func() {
		if cur != nil && anon == 0 && rss > 0 {
			spans = append(spans, *cur)
			resident += rss
		}
		cur, rss, anon = nil, 0, 0
	}
	for n := 1; len(smaps) > 0; n++ {
		var line []byte
		line, smaps, _ = bytes.Cut(smaps, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		fields := bytes.Fields(line)
		if len(fields) == 0 {
			continue
		}
		if bytes.HasSuffix(fields[0], []byte(":")) {
			// A field of the mapping: "Rss:   1234 kB".
			name := string(fields[0])
			if cur == nil || (name != "Rss:" && name != "Anonymous:") {
				continue
			}
			if len(fields) < 2 {
				return nil, 0, fmt.Errorf("smaps line %d: %s without a value", n, name)
			}
			kb, err := strconv.ParseInt(string(fields[1]), 10, 64)
			if err != nil || kb < 0 || kb > 1<<40 {
				return nil, 0, fmt.Errorf("smaps line %d: %s %q is not a size in kB", n, name, fields[1])
			}
			if name == "Rss:" {
				rss = kb << 10
			} else {
				anon = kb << 10
			}
			continue
		}
		// A mapping: "start-end perms offset dev inode [path]".
		flush()
		if len(fields) < 5 {
			return nil, 0, fmt.Errorf("smaps line %d: %q is neither a mapping nor a field", n, line)
		}
		lo, hi, ok := bytes.Cut(fields[0], []byte("-"))
		start, err1 := strconv.ParseUint(string(lo), 16, 64)
		end, err2 := strconv.ParseUint(string(hi), 16, 64)
		if !ok || err1 != nil || err2 != nil || end <= start || start%uint64(os.Getpagesize()) != 0 {
			return nil, 0, fmt.Errorf("smaps line %d: %q is not an address range", n, fields[0])
		}
		perms := fields[1]
		if len(perms) != 4 || perms[1] == 'w' || perms[3] != 'p' {
			continue
		}
		// The path is the rest of the line after the inode, as the kernel
		// wrote it (spaces kept).
		rest := line
		for range 5 {
			rest = bytes.TrimLeft(rest, " \t")
			i := bytes.IndexAny(rest, " \t")
			if i < 0 {
				rest = nil
				break
			}
			rest = rest[i:]
		}
		if string(bytes.TrimLeft(rest, " \t")) != exe {
			continue
		}
		cur = &span{start, end}
	}
	flush()
	return spans, resident, nil
}
