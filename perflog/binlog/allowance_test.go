package binlog

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAllowance: what decoding a log may produce is bounded by the file's
// size, over all its records (issue 28, item 1: a 1 KB log decompressed
// to gigabytes, because each sample's budget grew from the one before
// and any record could claim a 1 MiB payload). The bound is counted once
// per record: reading the samples again costs nothing more, and a log
// that fits reads whole however often it is read.
func TestAllowance(t *testing.T) {
	samples, db := windowsSamples(t)
	for _, compress := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "a.plog")
		opts := DefaultOptions()
		opts.Titles = db
		opts.Compress = compress
		writeLog(t, path, opts, samples)

		// The whole log, three times over, within its allowance.
		l, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		for round := range 3 {
			for i := range l.Len() {
				if err := l.Seek(i); err != nil {
					t.Fatal(err)
				}
				if _, err := l.Sample(t.Context(), nil); err != nil {
					t.Fatalf("compress %v, round %d, sample %d: %v", compress, round, i, err)
				}
			}
		}
		if l.spent <= 0 || l.spent > l.allowance {
			t.Errorf("compress %v: spent %d of %d", compress, l.spent, l.allowance)
		}
		spent := l.spent
		for i := range l.Len() { // again: nothing more is charged
			l.Seek(i)
			l.Sample(t.Context(), nil)
		}
		if l.spent != spent {
			t.Errorf("compress %v: reading again charged %d bytes more", compress, l.spent-spent)
		}
		l.Close()

		// The same log allowed only what its first sample takes: the
		// second is refused, with the reason, and nothing panics.
		l, err = Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := l.Sample(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
		l.allowance = l.spent + 16
		_, err = l.Sample(t.Context(), nil)
		if err == nil || !(strings.Contains(err.Error(), "more than a log of") || strings.Contains(err.Error(), "left of its limit")) {
			t.Errorf("compress %v: a sample past the allowance: %v", compress, err)
		}
		l.Close()
	}
}
