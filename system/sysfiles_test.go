package system

import (
	"os"
	"path/filepath"
	"testing"
)

// TestKeptSysFiles: a /sys attribute read at every sample is read through
// one kept descriptor that sees the file's new content, the files of a
// device gone from the listing are closed, a failing attribute gives the
// same error every time, and Close releases everything.
func TestKeptSysFiles(t *testing.T) {
	root := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("block/sda/size", "100\n")
	write("block/sdb/size", "200\n")
	c := NewCollector(nil, os.DirFS(root))
	read := func(name string) string {
		t.Helper()
		b, err := c.readSys(name)
		if err != nil {
			t.Fatalf("readSys %s: %v", name, err)
		}
		return string(b)
	}
	steps := []struct {
		name    string
		change  func()
		read    []string
		want    []string
		sweep   bool
		kept    int
		keptFor string
	}{
		{name: "first reads open and keep", read: []string{"block/sda/size", "block/sdb/size"}, want: []string{"100\n", "200\n"}, sweep: true, kept: 2},
		{name: "new content seen through the kept descriptor", change: func() { write("block/sda/size", "12345\n") },
			read: []string{"block/sda/size", "block/sdb/size"}, want: []string{"12345\n", "200\n"}, sweep: true, kept: 2},
		{name: "a device no longer read is closed at the sweep", read: []string{"block/sdb/size"}, want: []string{"200\n"}, sweep: true, kept: 1, keptFor: "block/sdb/size"},
	}
	for _, st := range steps {
		if st.change != nil {
			st.change()
		}
		round := c.sysKept.begin()
		for i, name := range st.read {
			if got := read(name); got != st.want[i] {
				t.Errorf("%s: %s = %q, want %q", st.name, name, got, st.want[i])
			}
		}
		if st.sweep {
			c.sysKept.sweep("block/", round)
		}
		if got := len(c.sysKept.files); got != st.kept {
			t.Errorf("%s: %d files kept, want %d", st.name, got, st.kept)
		}
		if st.keptFor != "" {
			if _, ok := c.sysKept.files[st.keptFor]; !ok {
				t.Errorf("%s: %s not kept", st.name, st.keptFor)
			}
		}
	}

	// A directory in place of the attribute fails to read (EISDIR), as an
	// interface without a link speed fails with EINVAL: the same error
	// each time, from the kept descriptor.
	if err := os.MkdirAll(filepath.Join(root, "class/net/lo/speed"), 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if _, err := c.readSys("class/net/lo/speed"); err == nil {
			t.Fatalf("read %d of a directory: no error", i)
		}
	}
	if f := c.sysKept.files["class/net/lo/speed"]; f == nil || f.failed == nil {
		t.Errorf("failing attribute: kept %+v, want a kept file with its error", f)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if n := len(c.sysKept.files); n != 0 {
		t.Errorf("after Close: %d files kept", n)
	}
	// Still usable after Close.
	if got := read("block/sda/size"); got != "12345\n" {
		t.Errorf("after Close: %q", got)
	}
}
