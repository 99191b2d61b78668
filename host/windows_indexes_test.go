package host

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
)

// TestWindowsTitleIndexes checks that every counter our built-in objects
// share with Windows carries the title index Windows gives it, read from the
// real Vista blocks (one per object) committed in perfdata/testdata/windows.
// A Windows user's "\238\1746" must name the same counter here.
func TestWindowsTitleIndexes(t *testing.T) {
	if _, err := os.Stat("/proc/stat"); err != nil {
		t.Skipf("no /proc: %v", err)
	}
	files, _ := filepath.Glob(filepath.Join("..", "perfdata", "testdata", "windows", "*.bin"))
	if len(files) != 8 {
		t.Fatalf("want 8 Windows blocks, found %d", len(files))
	}
	h, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, ours := queryGlobal(t, h)
	db := h.Titles()
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		win, err := perfdata.Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		it := win.Objects()
		for it.Next() {
			wo := it.Object()
			oo, ok := ours.Object(wo.NameIndex())
			if !ok {
				t.Errorf("%s: object %d (%s) missing from our Global block", filepath.Base(f), wo.NameIndex(), db.Name(wo.NameIndex()))
				continue
			}
			winIdx := map[string]uint32{}
			for i := range wo.NumCounters() {
				if d := wo.Counter(i); !d.Type.IsBase() {
					winIdx[db.Name(d.NameIndex)] = d.NameIndex
				}
			}
			for i := range oo.NumCounters() {
				d := oo.Counter(i)
				if d.Type.IsBase() {
					continue
				}
				name := db.Name(d.NameIndex)
				if w, ok := winIdx[name]; ok {
					checked++
					if w != d.NameIndex {
						t.Errorf("%s\\%s: title index %d, Windows uses %d", db.Name(wo.NameIndex()), name, d.NameIndex, w)
					}
				}
			}
		}
	}
	if checked < 50 {
		t.Errorf("only %d counters compared; the objects should share far more with Windows", checked)
	}
}
