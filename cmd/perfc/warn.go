package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
)

// maxWarnings bounds the distinct warnings one run prints; after it one
// line says that further warnings are left out. It keeps a host with
// thousands of failing sources from flooding the terminal.
const maxWarnings = 100

// warner prints warnings to standard error, each distinct cause once:
// "perfc: warning: MESSAGE". A tool calls Warn; the host and engine reach
// it through Handler, as a slog handler. The zero cause "" is a cause of
// its own. It is safe for concurrent use.
type warner struct {
	mu   sync.Mutex
	w    io.Writer
	off  bool
	seen map[string]bool
}

// newWarner returns a warner writing to w; off silences it.
func newWarner(w io.Writer, off bool) *warner {
	return &warner{w: w, off: off, seen: map[string]bool{}}
}

// Warn prints msg unless a warning with the same cause was printed before
// (or warnings are off). cause identifies what went wrong independently of
// the values that change from sample to sample (for example "pdh:io:1234"
// for one process's unreadable I/O counters); msg is what the user reads.
func (w *warner) Warn(cause, msg string) {
	if w == nil || w.off {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.seen[cause] {
		return
	}
	switch n := len(w.seen); {
	case n == maxWarnings:
		fmt.Fprintf(w.w, "perfc: warning: more than %d different warnings; the rest are left out\n", maxWarnings)
		w.seen[cause] = true
		return
	case n > maxWarnings:
		return
	}
	w.seen[cause] = true
	fmt.Fprintf(w.w, "perfc: warning: %s\n", userMessage(msg))
}

// Handler returns a slog.Handler that sends records at level Warn and
// above to w, their message and attributes as the cause.
func (w *warner) Handler() slog.Handler { return warnHandler{w: w} }

type warnHandler struct {
	w      *warner
	prefix string // attributes added with WithAttrs, formatted
	group  string
}

func (h warnHandler) Enabled(_ context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.w != nil && !h.w.off
}

func (h warnHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	b.WriteString(h.prefix)
	r.Attrs(func(a slog.Attr) bool {
		appendAttr(&b, h.group, a)
		return true
	})
	s := b.String()
	h.w.Warn(s, s)
	return nil
}

func (h warnHandler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.prefix)
	for _, a := range as {
		appendAttr(&b, h.group, a)
	}
	h.prefix = b.String()
	return h
}

func (h warnHandler) WithGroup(name string) slog.Handler {
	if name != "" {
		h.group += name + "."
	}
	return h
}

// appendAttr writes ", key: value" (a group's members with their group's
// name before theirs).
func appendAttr(b *strings.Builder, group string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		g := group
		if a.Key != "" {
			g += a.Key + "."
		}
		for _, m := range a.Value.Group() {
			appendAttr(b, g, m)
		}
		return
	}
	fmt.Fprintf(b, "; %s%s: %s", group, a.Key, userMessage(a.Value.String()))
}

// internalPackages are the package names Go errors start with inside
// perfcounters ("pdh: ..."); the CLI speaks of the user's objects and
// files instead.
const internalPackages = "pdh engine host perfdata counterpath titles system provider shm collect manifest counterset calc relog typeperf pdhcsv lodctr ctrpp dump query"

// userMessage removes internal package prefixes ("pdh: ", "engine: ")
// wherever they start a message or a wrapped cause (after ": ").
func userMessage(s string) string {
	for {
		changed := false
		for _, p := range strings.Fields(internalPackages) {
			p += ": "
			if strings.HasPrefix(s, p) {
				s = s[len(p):]
				changed = true
			}
			if strings.Contains(s, ": "+p) {
				s = strings.ReplaceAll(s, ": "+p, ": ")
				changed = true
			}
		}
		if !changed {
			return s
		}
	}
}
