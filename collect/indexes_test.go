package collect

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/countertype"
	"github.com/perfcounters/perfcounters/perfdata"
)

func TestIndexesFromEnv(t *testing.T) {
	env := func(vars ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(vars); i += 2 {
				if vars[i] == k {
					return vars[i+1]
				}
			}
			return ""
		}
	}
	good := []string{EnvFirstCounter, "11308", EnvFirstHelp, "11309", EnvLastCounter, "11312", EnvLastHelp, "11313"}
	with := func(k, v string) []string {
		out := slices.Clone(good)
		out[slices.Index(out, k)+1] = v
		return out
	}
	tests := []struct {
		name string
		vars []string
		want string // error part; "" = good
	}{
		{"good", good, ""},
		{"empty", []string{EnvFirstCounter, "", EnvFirstHelp, "1"}, EnvFirstCounter + " is not set"},
		{"missing", with(EnvLastHelp, ""), EnvLastHelp + " is not set"},
		{"not a number", with(EnvFirstHelp, "x"), `PERFC_FIRST_HELP="x" is not a title index`},
		{"negative", with(EnvFirstCounter, "-2"), "not a title index"},
		{"odd first", with(EnvFirstCounter, "11307"), "not a range"},
		{"help not name + 1", with(EnvFirstHelp, "11311"), "not a range"},
		{"last below first", with(EnvLastCounter, "11306"), "not a range"},
		{"too large", with(EnvLastHelp, "4294967296"), "not a title index"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ix, err := IndexesFromEnv(env(tc.vars...))
			if tc.want == "" {
				if err != nil || ix != (Indexes{11308, 11309, 11312, 11313}) {
					t.Fatalf("= %+v, %v", ix, err)
				}
				if got := ix.Environ(); !slices.Equal(got, []string{"PERFC_FIRST_COUNTER=11308", "PERFC_FIRST_HELP=11309", "PERFC_LAST_COUNTER=11312", "PERFC_LAST_HELP=11313"}) {
					t.Errorf("Environ = %q", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// TestProviderEnv: the four variables the engine inherited never reach a
// provider; the registration's do.
func TestProviderEnv(t *testing.T) {
	engine := func() []string { return []string{"PATH=/bin", "PERFC_FIRST_COUNTER=2", "PERFC_LAST_HELP=5", "HOME=/h"} }
	if got := providerEnv(nil, engine, nil); !slices.Equal(got, []string{"PATH=/bin", "HOME=/h"}) {
		t.Errorf("no indexes: %q", got)
	}
	ix := &Indexes{100, 101, 102, 103}
	want := []string{"X=1", "PERFC_FIRST_COUNTER=100", "PERFC_FIRST_HELP=101", "PERFC_LAST_COUNTER=102", "PERFC_LAST_HELP=103"}
	if got := providerEnv([]string{"X=1", "PERFC_FIRST_HELP=9"}, engine, ix); !slices.Equal(got, want) {
		t.Errorf("with indexes: %q, want %q", got, want)
	}
}

// transferObject builds, with perfdata's builder, the object the shell
// provider of testdata/ini-provider.sh must write for First Counter fc:
// single instance, the object at fc, RAWCOUNT counters at fc+2 and fc+4.
func transferObject(t *testing.T, fc uint32, sent, bandwidth uint64) []byte {
	t.Helper()
	specs := []perfdata.CounterSpec{
		{NameIndex: fc + 2, HelpIndex: fc + 3, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT, Size: 4},
		{NameIndex: fc + 4, HelpIndex: fc + 5, DetailLevel: 100, Type: countertype.PERF_COUNTER_RAWCOUNT, Size: 4},
	}
	l, err := perfdata.NewLayout(specs)
	if err != nil {
		t.Fatal(err)
	}
	b := perfdata.NewBuilder(nil)
	b.Reset(perfdata.Header{SystemName: "x"})
	if err := b.BeginObject(perfdata.ObjectSpec{NameIndex: fc, HelpIndex: fc + 1, DetailLevel: 100, Single: true}, l, specs); err != nil {
		t.Fatal(err)
	}
	b.Single().Set(0, sent)
	b.Single().Set(1, bandwidth)
	if err := b.EndObject(); err != nil {
		t.Fatal(err)
	}
	blk, err := perfdata.Parse(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	o, _ := blk.Object(fc)
	return o.Bytes()
}

// TestExecIniProvider: the shell provider learns First Counter and First
// Help from the engine and writes its object at those indexes, byte for
// byte what perfdata's builder makes; without them it refuses OPEN.
func TestExecIniProvider(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no POSIX shell:", err)
	}
	script := filepath.Join("testdata", "ini-provider.sh")
	for _, fc := range []uint32{11308, 2} {
		p := Exec(sh, script, "42", "7")
		p.Stderr = tWriter{t}
		p.Indexes = &Indexes{FirstCounter: fc, FirstHelp: fc + 1, LastCounter: fc + 4, LastHelp: fc + 5}
		ctx := context.Background()
		if err := p.Open(ctx); err != nil {
			t.Fatal(err)
		}
		want := transferObject(t, fc, 42, 7)
		buf := make([]byte, 4096)
		n, k, err := p.Collect(ctx, "Global", buf)
		if err != nil || k != 1 || !bytes.Equal(buf[:n], want) {
			t.Errorf("First Counter %d: Collect = %d bytes, %d objects, %v\ngot  % x\nwant % x", fc, n, k, err, buf[:n], want)
		}
		if n, k, err := p.Collect(ctx, "238", buf); n != 0 || k != 0 || err != nil {
			t.Errorf("another object: %d, %d, %v", n, k, err)
		}
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	}
	p := Exec(sh, script, "42", "7")
	p.Env = []string{"PERFC_FIRST_COUNTER=11308"} // inherited, not the registration's: removed
	t.Cleanup(func() { p.Close() })
	if err := p.Open(context.Background()); err == nil || !strings.Contains(err.Error(), "PERFC_FIRST_COUNTER or PERFC_FIRST_HELP is not set") {
		t.Errorf("Open without indexes: %v", err)
	}
}
