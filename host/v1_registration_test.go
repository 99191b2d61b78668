package host

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perfdata"
)

// widgetObject returns one PERF_OBJECT_TYPE (no block header), index 9000,
// single instance, counter 9002 = 42: what a V1 provider writes.
func widgetObject(t *testing.T) []byte {
	t.Helper()
	specs := []perfdata.CounterSpec{{NameIndex: 9002, HelpIndex: 9003, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT, Size: 4}}
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{SystemName: "x"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: 9000, HelpIndex: 9001, DetailLevel: 100, DefaultCounter: 0, Single: true}, l, specs); err != nil {
		t.Fatal(err)
	}
	b.Single().Set(0, 42)
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	blk, err := perfdata.Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	o, _ := blk.Object(9000)
	return o.Bytes()
}

// providerScript returns /bin/sh and the absolute path of the shell
// provider name in package collect's testdata; the test is skipped in
// short mode or where there is no /bin/sh.
func providerScript(t *testing.T, name string) (sh, script string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a provider process")
	}
	sh, err := executable("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	script, err = filepath.Abs(filepath.Join("..", "collect", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return sh, script
}

// TestV1Registration registers the POSIX-shell provider of package collect
// in a temporary state directory and reads its object through the host,
// by index and by name, then unregisters it.
func TestV1Registration(t *testing.T) {
	sh, script := providerScript(t, "fixed-provider.sh")
	objFile := filepath.Join(t.TempDir(), "widgets.bin")
	if err := os.WriteFile(objFile, widgetObject(t), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	reg := V1Registration{
		Name: "widgets", Exec: sh, Args: []string{script, objFile, "9000"}, Objects: []uint32{9000},
		Names: []V1Name{{Index: 9000, Name: "Legacy Widgets", Help: "Widgets made by a V1 provider."}, {Index: 9002, Name: "Widgets Made", Help: "How many widgets."}},
	}
	if err := RegisterV1(state, reg); err != nil {
		t.Fatal(err)
	}
	regs, err := ReadV1(state)
	if err != nil || len(regs) != 1 || regs[0].Name != "widgets" {
		t.Fatalf("ReadV1 = %+v, %v", regs, err)
	}

	h, err := New(Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"Global", "9000"} {
		r, err := h.QueryValue(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Problems) != 0 {
			t.Fatalf("%s: problems %v", q, r.Problems)
		}
		blk, err := perfdata.Parse(r.Block)
		if err != nil {
			t.Fatal(err)
		}
		o, ok := blk.Object(9000)
		if !ok {
			t.Fatalf("%s: the V1 provider's object is missing", q)
		}
		if v := o.SingleBlock().Value(o.Counter(0)); v != 42 {
			t.Errorf("%s: Widgets Made = %d, want 42", q, v)
		}
	}
	if h.Titles().Name(9000) != "Legacy Widgets" || h.Titles().Help(9003) != "How many widgets." {
		t.Errorf("titles: %q / %q", h.Titles().Name(9000), h.Titles().Help(9003))
	}
	// By name, as typeperf finds it.
	q := pdh.OpenQuery(h.Source())
	c, err := q.AddCounter(`\Legacy Widgets\Widgets Made`)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Collect(context.Background()); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Formatted(calc.FmtDouble); err != nil || v.Double != 42 {
		t.Errorf("\\Legacy Widgets\\Widgets Made = %+v, %v", v, err)
	}
	h.Close()

	if err := UnregisterV1(state, "widgets"); err != nil {
		t.Fatal(err)
	}
	if err := UnregisterV1(state, "widgets"); err == nil {
		t.Error("second unregister: no error")
	}
	h, err = New(Options{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	if _, blk := queryGlobal(t, h); func() bool { _, ok := blk.Object(9000); return ok }() {
		t.Error("object still there after unregistering")
	}
}

func TestV1RegistrationRejected(t *testing.T) {
	sh, err := executable("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	state := t.TempDir()
	for _, tt := range []struct {
		name string
		reg  V1Registration
		want string
	}{
		{"relative exec", V1Registration{Name: "a", Exec: "sh"}, "not an absolute path"},
		{"missing exec", V1Registration{Name: "a", Exec: "/nonexistent/provider"}, "no such file"},
		{"no name", V1Registration{Exec: sh}, "no name"},
		{"odd index", V1Registration{Name: "a", Exec: sh, Names: []V1Name{{Index: 9001, Name: "x", Help: ""}}}, "even index"},
		{"level", V1Registration{Name: "a", Exec: sh, TestLevel: 5}, "test level"},
		{"renames Processor", V1Registration{Name: "a", Exec: sh, Names: []V1Name{{Index: 238, Name: "Widgets", Help: ""}}}, `already names "Processor"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := RegisterV1(state, tt.reg)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("RegisterV1: %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

func executable(p string) (string, error) {
	if _, err := os.Stat(p); err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(p)
}
