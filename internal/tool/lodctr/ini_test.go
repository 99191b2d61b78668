package lodctr

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/internal/golden"
	"github.com/perfcounters/perfcounters/internal/tool/typeperf"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
	statedir "github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
)

// The .ini fixture of package perfini (UTF-16LE with a byte-order mark,
// German beside English, comments before [info], blanks around '=', a
// symbol in another case than in the header, symbolfile in another case
// than the file's name), and collect's shell provider that adds its
// offsets to the First Counter the engine hands it.
const (
	transferINI = "../../../perfini/testdata/transfer/Transfer.ini"
	iniProvider = "../../../collect/testdata/ini-provider.sh"
)

// trustedShell returns /bin/sh resolved and the provider script's
// absolute path, or skips when the shell cannot be a V1 provider here.
func trustedShell(t *testing.T) (sh, script string) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a provider process")
	}
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	if err := statedir.CheckExecutable(sh, os.Geteuid()); err != nil {
		t.Skipf("/bin/sh is not a trusted executable here: %v", err)
	}
	script, err = filepath.Abs(iniProvider)
	if err != nil {
		t.Fatal(err)
	}
	return sh, script
}

// typeperfOnce runs typeperf for one sample of counters on a new host
// over the state directory.
func typeperfOnce(t *testing.T, state string, counters ...string) (string, error) {
	t.Helper()
	h, err := host.New(host.Options{StateDir: state, SegmentDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var out bytes.Buffer
	opts := typeperf.Options{Counters: counters, Samples: 1, Interval: time.Millisecond, Format: pdhcsv.CSV, Location: time.UTC, Machine: "HOST"}
	var errw bytes.Buffer
	err = typeperf.Run(context.Background(), h.Source(), opts, &out, io.Discard, &errw)
	t.Logf("typeperf stderr: %s", errw.String())
	return out.String(), err
}

// TestINIEndToEnd is issue 29's path: lodctr FILE.ini registers the
// provider with its English names after Last Counter, typeperf reads its
// counters by those names with the values the provider writes at First
// Counter + offset, the German names stay with the registration, and
// unlodctr DRIVERNAME removes names and provider.
func TestINIEndToEnd(t *testing.T) {
	sh, script := trustedShell(t)
	state := t.TempDir()
	opts := Options{StateDir: state, Builtin: host.BuiltinTitles, Reserved: host.BuiltinObjects()}
	// Expected from the rule (the block starts at the even index after
	// Last Counter of the database the host uses), before registering.
	db, err := statedir.Titles(state, host.BuiltinTitles)
	if err != nil {
		t.Fatal(err)
	}
	fc := db.LastCounter() + 2

	var out bytes.Buffer
	if err := InstallINI(opts, transferINI, V1Exec{Path: sh, Args: []string{script, "42", "7"}}, &out); err != nil {
		t.Fatal(err)
	}
	if want := "Info: Successfully installed performance counters for " + transferINI + "\n"; out.String() != want {
		t.Errorf("lodctr said %q, want %q", out.String(), want)
	}
	regs, _, err := statedir.ReadV1(state)
	if err != nil || len(regs) != 1 {
		t.Fatalf("ReadV1: %+v, %v", regs, err)
	}
	r := regs[0]
	if r.Name != "PerfcTransfer" || r.FirstCounter != fc || r.FirstHelp != fc+1 || r.LastCounter != fc+4 || r.LastHelp != fc+5 || len(r.Objects) != 1 || r.Objects[0] != fc {
		t.Errorf("registration %+v; want PerfcTransfer, First Counter %d, Last Counter %d, object %d", r, fc, fc+4, fc)
	}
	german := map[uint32]string{fc: "Übertragung", fc + 2: "Gesendete Bytes", fc + 4: "Verfügbare Bandbreite"}
	for _, n := range r.Names {
		if n.Localized["007"].Name != german[n.Index] || n.Localized["009"].Name != n.Name {
			t.Errorf("name %d %q: localized %+v", n.Index, n.Name, n.Localized)
		}
	}

	csv, err := typeperfOnce(t, state, `\Transfer\Bytes Sent`, `\Transfer\Available Bandwidth`)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv), "\n")
	if len(lines) != 2 || !strings.HasSuffix(lines[0], `,"\\HOST\Transfer\Bytes Sent","\\HOST\Transfer\Available Bandwidth"`) || !strings.HasSuffix(lines[1], `,"42.000000","7.000000"`) {
		t.Errorf("typeperf:\n%s", csv)
	}
	// The database holds the English names; the German ones are for the
	// per-language databases.
	if _, err := typeperfOnce(t, state, `\Übertragung\Gesendete Bytes`); !errors.Is(err, typeperf.ErrNoValidCounters) {
		t.Errorf("a German path: %v, want no valid counters", err)
	}

	out.Reset()
	if err := Uninstall(opts, "PerfcTransfer", &out); err != nil {
		t.Fatal(err)
	}
	if want := "Info: Successfully uninstalled the performance counters of V1 provider PerfcTransfer\n"; out.String() != want {
		t.Errorf("unlodctr said %q, want %q", out.String(), want)
	}
	db, err = statedir.Titles(state, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := fc; i <= fc+4; i += 2 {
		if n := db.Name(i); n != "" {
			t.Errorf("title %d still %q after unlodctr", i, n)
		}
	}
	if regs, _, _ := statedir.ReadV1(state); len(regs) != 0 {
		t.Errorf("still registered: %+v", regs)
	}
	if _, err := typeperfOnce(t, state, `\Transfer\Bytes Sent`); !errors.Is(err, typeperf.ErrNoValidCounters) {
		t.Errorf("after unlodctr: %v, want no valid counters", err)
	}
}

// TestINIOutput pins, in a golden file, what lodctr -v FILE.ini, lodctr
// /q, lodctr FILE.ini again (without /exec:) and unlodctr -v FILE.ini
// print. The database is English Windows' table alone, so the indexes
// are fixed: the block starts after its Last Counter.
func TestINIOutput(t *testing.T) {
	sh, script := trustedShell(t)
	state := t.TempDir()
	opts := Options{StateDir: state, Verbose: true}
	var out bytes.Buffer
	step := func(name string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	out.WriteString("$ lodctr -v Transfer.ini /exec:SH /arg:SCRIPT /arg:42 /arg:7\n")
	step("install", InstallINI(opts, transferINI, V1Exec{Path: sh, Args: []string{script, "42", "7"}}, &out))
	out.WriteString("$ lodctr /q\n")
	step("list", List(opts, "", &out))
	out.WriteString("$ lodctr -v Transfer.ini\n")
	step("again", InstallINI(opts, transferINI, V1Exec{}, &out))
	out.WriteString("$ unlodctr -v Transfer.ini\n")
	step("uninstall", UninstallINI(opts, transferINI, &out))
	got := strings.NewReplacer(sh, "SH", script, "SCRIPT", state, "STATE").Replace(out.String())
	golden.Check(t, filepath.Join("testdata", "ini-output.golden"), got)
	// The indexes in the golden file follow from the rule alone.
	fc := strconv.FormatUint(uint64(titles.EnglishLastCounter()+2), 10)
	if !strings.Contains(got, "First Counter "+fc+",") {
		t.Errorf("First Counter is not %s, the even index after English Windows' Last Counter", fc)
	}
}

// TestINIRefused: what lodctr FILE.ini refuses, with the file and line
// at fault where the files are at fault; nothing is registered.
func TestINIRefused(t *testing.T) {
	sh, script := trustedShell(t)
	const h = "#define OBJ 0\n#define CTR 2\n"
	ini := func(object string) string {
		return "[info]\ndrivername=Drv\nsymbolfile=s.h\n[languages]\n009=\n[objects]\nOBJ_009_NAME=\n[text]\nOBJ_009_NAME=" + object + "\nCTR_009_NAME=Counter\n"
	}
	tests := []struct {
		name   string
		ini, h string
		exec   V1Exec
		want   string                         // with the temporary directory as DIR
		prep   func(t *testing.T, dir string) // changes the files after they are written
		root   bool                           // prep needs root (another user's files)
	}{
		{"no executable", ini("Obj"), h, V1Exec{}, "unable to install performance counters for DIR/p.ini: no executable for the V1 provider Drv: name the program", nil, false},
		{"an odd offset", ini("Obj"), "#define OBJ 0\n#define CTR 3\n", V1Exec{Path: sh}, "DIR/s.h:2: CTR = 3 is odd", nil, false},
		{"a built-in object's name", ini("Processor"), h, V1Exec{Path: sh}, `object "Processor": "Processor" is the name of a built-in object`, nil, false},
		{"an untrusted executable", ini("Obj"), h, V1Exec{Path: "DIR/p.ini"}, "not an executable file", nil, false},
		// Issue 43 item 10: the files are read only when no other user
		// controls them, so that root never registers (and shows every
		// user in the titles) what another user's link or file points at.
		{"an .ini others may write", ini("Obj"), h, V1Exec{Path: sh}, "DIR/p.ini is writable by other users", func(t *testing.T, dir string) {
			chmod(t, filepath.Join(dir, "p.ini"), 0o666)
		}, false},
		{"a symbol file others may write", ini("Obj"), h, V1Exec{Path: sh}, "DIR/s.h is writable by other users", func(t *testing.T, dir string) {
			chmod(t, filepath.Join(dir, "s.h"), 0o646)
		}, false},
		{"another user's .ini", ini("Obj"), h, V1Exec{Path: sh}, "DIR/p.ini is owned by uid 4242", func(t *testing.T, dir string) {
			chown(t, filepath.Join(dir, "p.ini"))
		}, true},
		{"another user's link to root's .ini", ini("Obj"), h, V1Exec{Path: sh}, "a symbolic link owned by uid 4242", func(t *testing.T, dir string) {
			relink(t, dir, "p.ini")
		}, true},
		{"another user's link to root's symbol file", ini("Obj"), h, V1Exec{Path: sh}, "a symbolic link owned by uid 4242", func(t *testing.T, dir string) {
			relink(t, dir, "s.h")
		}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("needs root to give a file to another user")
			}
			dir, state := t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(dir, "p.ini"), []byte(tc.ini), 0o644)
			os.WriteFile(filepath.Join(dir, "s.h"), []byte(tc.h), 0o644)
			if tc.prep != nil {
				tc.prep(t, dir)
			}
			tc.exec.Path = strings.ReplaceAll(tc.exec.Path, "DIR", dir)
			if tc.exec.Path != "" {
				tc.exec.Args = []string{script}
			}
			var out bytes.Buffer
			err := InstallINI(Options{StateDir: state, Reserved: host.BuiltinObjects()}, filepath.Join(dir, "p.ini"), tc.exec, &out)
			if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir, "DIR"), tc.want) {
				t.Fatalf("error %v\nwant it to contain %q", err, tc.want)
			}
			if regs, _, _ := statedir.ReadV1(state); len(regs) != 0 || out.Len() != 0 {
				t.Errorf("registered %+v, said %q", regs, out.String())
			}
		})
	}
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func chown(t *testing.T, path string) {
	t.Helper()
	if err := os.Chown(path, 4242, 4242); err != nil {
		t.Fatal(err)
	}
}

// relink moves dir/name to a directory of root's and leaves in its place
// a link to it that uid 4242 owns.
func relink(t *testing.T, dir, name string) {
	t.Helper()
	target := filepath.Join(t.TempDir(), name)
	if err := os.Rename(filepath.Join(dir, name), target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(filepath.Join(dir, name), 4242, 4242); err != nil {
		t.Fatal(err)
	}
}

// TestUnlodctrNames: unlodctr DRIVERNAME finds the V1 provider without
// case; a name that is a V1 and a V2 provider's is refused with how to
// name each.
func TestUnlodctrNames(t *testing.T) {
	sh, script := trustedShell(t)
	state := t.TempDir()
	opts := Options{StateDir: state}
	if err := InstallINI(opts, transferINI, V1Exec{Path: sh, Args: []string{script, "1", "2"}}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := Uninstall(opts, "nobody", io.Discard); err == nil || !strings.Contains(err.Error(), "no provider") {
		t.Errorf("unlodctr nobody: %v", err)
	}
	if err := Uninstall(opts, "perfctransfer", io.Discard); err != nil {
		t.Errorf("unlodctr perfctransfer: %v", err)
	}
	// A V2 provider named like the V1 one.
	if err := InstallINI(opts, transferINI, V1Exec{Path: sh, Args: []string{script, "1", "2"}}, io.Discard); err != nil {
		t.Fatal(err)
	}
	man := filepath.Join(t.TempDir(), "p.man")
	os.WriteFile(man, []byte(strings.Replace(manifestNamed, "NAME", "PerfcTransfer", 1)), 0o644)
	if err := Install(opts, man, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := Uninstall(opts, "PerfcTransfer", io.Discard); err == nil || !strings.Contains(err.Error(), "name the V2 one by its GUID, the V1 one with /v1:PerfcTransfer") {
		t.Errorf("ambiguous unlodctr: %v", err)
	}
	if err := UninstallV1(opts, "PerfcTransfer", io.Discard); err != nil {
		t.Errorf("unlodctr /v1:PerfcTransfer: %v", err)
	}
}

// manifestNamed is a minimal counters manifest whose provider is NAME.
const manifestNamed = `<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
 <instrumentation xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <counters xmlns="http://schemas.microsoft.com/win/2005/12/counters" schemaVersion="1.1">
   <provider providerName="NAME" providerGuid="{6B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B10}" applicationIdentity="x.exe" providerType="userMode">
    <counterSet guid="{6B0D7C1E-8F3A-4C2B-9E61-3A7D2C9F4B11}" uri="X.Set" name="Some Set" description="d" instances="single">
     <counter id="1" uri="X.Set.C" name="Some Counter" description="d" type="perf_counter_rawcount" detailLevel="standard"/>
    </counterSet>
   </provider>
  </counters>
 </instrumentation>
</instrumentationManifest>
`

// TestINILanguageVariants: pt-BR (416) and pt-PT (816), zh-CN (804) and
// zh-TW (404) are languages of their own, as Windows keeps them: each
// gets its own names, none refused as a second name of the other (issue
// 44: they were collapsed to their primary language).
func TestINILanguageVariants(t *testing.T) {
	sh, script := trustedShell(t)
	dir, st := t.TempDir(), t.TempDir()
	ini := "[info]\ndrivername=Variants\nsymbolfile=s.h\n[languages]\n009=English\n416=Portuguese (Brazil)\n816=Portuguese (Portugal)\n804=Chinese (PRC)\n404=Chinese (Taiwan)\n[objects]\nOBJ_009_NAME=\n[text]\n" +
		"OBJ_009_NAME=Screen\nOBJ_416_NAME=Tela\nOBJ_816_NAME=Ecrã\nOBJ_804_NAME=屏幕\nOBJ_404_NAME=螢幕\n" +
		"CTR_009_NAME=Frames\nCTR_416_NAME=Quadros\nCTR_816_NAME=Imagens\nCTR_804_NAME=帧\nCTR_404_NAME=幀\n"
	mustWrite(t, filepath.Join(dir, "p.ini"), ini)
	mustWrite(t, filepath.Join(dir, "s.h"), "#define OBJ 0\n#define CTR 2\n")
	var out bytes.Buffer
	if err := InstallINI(Options{StateDir: st, Reserved: host.BuiltinObjects()}, filepath.Join(dir, "p.ini"), V1Exec{Path: sh, Args: []string{script}}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	regs, _, err := statedir.ReadV1(st)
	if err != nil || len(regs) != 1 {
		t.Fatalf("registrations %+v, %v", regs, err)
	}
	first := regs[0].FirstCounter
	for lang, want := range map[string][2]string{"416": {"Tela", "Quadros"}, "816": {"Ecrã", "Imagens"}, "804": {"屏幕", "帧"}, "404": {"螢幕", "幀"}} {
		l, err := titles.ParseLang(lang)
		if err != nil {
			t.Fatal(err)
		}
		db, err := statedir.LangTitles(st, l)
		if err != nil || db == nil {
			t.Fatalf("language %s: %v", lang, err)
		}
		if got := [2]string{db.Name(first), db.Name(first + 2)}; got != want {
			t.Errorf("language %s: names %q, want %q", lang, got, want)
		}
	}
}

func mustWrite(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
