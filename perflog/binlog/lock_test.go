package binlog

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSecondWriterRefused: a log open for writing cannot be opened by a
// second writer, to create or to append, and its file is left whole.
func TestSecondWriterRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.plog")
	w, err := Create(p, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Mode{Linear, Append} {
		o := DefaultOptions()
		o.Mode = m
		if w2, err := Create(p, o); err == nil || !strings.Contains(err.Error(), "another writer") {
			if w2 != nil {
				w2.Close()
			}
			t.Errorf("mode %v: second writer: %v; want refused", m, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	l, err := Open(p)
	if err != nil {
		t.Fatalf("the first writer's log after a refused second writer: %v", err)
	}
	l.Close()
	o := DefaultOptions()
	o.Mode = Append
	w3, err := Create(p, o)
	if err != nil {
		t.Fatalf("append after the first writer closed: %v", err)
	}
	w3.Close()
}
