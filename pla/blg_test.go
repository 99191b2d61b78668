package pla

import (
	"path/filepath"
	"testing"
	"testing/synctest"

	"github.com/perfcounters/perfcounters/collectorset"
	"github.com/perfcounters/perfcounters/perflog/blg"
)

// TestBLGSet: a set with -f blg writes a Windows BLG of its counters,
// one sample a second, that perfc's BLG reader opens; a circular or
// appended BLG is refused when the set is made.
func TestBLGSet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		set := newSet("win", root)
		set.Collector.LogFileFormat = collectorset.BLG
		const n = 5
		runFor(t, stateDir(t), set, newFakeSource(3), n)
		l, err := blg.Open(filepath.Join(root, "win.blg"))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		if l.Len() != n {
			t.Errorf("%d samples, want %d", l.Len(), n)
		}
		if got := l.Counters(); len(got) != 2 {
			t.Errorf("counters %q, want the set's 2", got)
		}
	})
	for _, f := range []string{"blgcirc"} {
		if _, _, err := collectorset.ParseFormat(f); err == nil {
			t.Errorf("-f %s accepted", f)
		}
	}
	set := newSet("win", t.TempDir())
	set.Collector.LogFileFormat, set.Collector.LogAppend = collectorset.BLG, true
	if err := set.Validate(); err == nil {
		t.Errorf("an appended BLG set validates")
	}
}
