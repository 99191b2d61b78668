package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/state"
)

// TestLodctrINI is the user's path of issue 29 through the binary, in
// Windows' syntax: lodctr FILE.ini (perfini's fixture: UTF-16, English
// and German, lenient forms) with collect's shell provider as /exec:,
// typeperf by the English names, lodctr /q, unlodctr DRIVERNAME, and a
// refused .ini whose message names the file and line.
func TestLodctrINI(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a provider process")
	}
	sh, err := filepath.EvalSymlinks("/bin/sh")
	if err != nil {
		t.Skip(err)
	}
	if err := state.CheckExecutable(sh, os.Geteuid()); err != nil {
		t.Skipf("/bin/sh cannot be a V1 provider here: %v", err)
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "collect", "testdata", "ini-provider.sh"))
	if err != nil {
		t.Fatal(err)
	}
	ini := filepath.Join("..", "..", "perfini", "testdata", "transfer", "Transfer.ini")
	dir := t.TempDir()
	env := stateEnv(dir)
	out, errs, code := runPerfcEnv(t, env, "lodctr", ini, "/exec:"+sh, "/arg:"+script, "/arg:42", "/arg:7")
	if code != 0 || out != "Info: Successfully installed performance counters for "+ini+"\n" {
		t.Fatalf("lodctr: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	typeperf := func() (string, string, int) {
		return runPerfcEnv(t, env, "typeperf", `\Transfer\Bytes Sent`, `\Transfer\Available Bandwidth`, "-sc", "1", "-si", "1")
	}
	out, errs, code = typeperf()
	if code != 0 || !strings.Contains(out, `\Transfer\Bytes Sent","\\`) || !strings.Contains(out, `"42.000000","7.000000"`) {
		t.Errorf("typeperf: exit %d, stderr %q\n%s", code, errs, out)
	}
	// The ini's German text (007) names the same counters: typeperf
	// -lang 007 reads them by the German path and writes German names.
	out, errs, code = runPerfcEnv(t, env, "typeperf", "-lang", "007", `\Übertragung\Gesendete Bytes`, `\Transfer\Available Bandwidth`, "-sc", "1", "-si", "1")
	if code != 0 || !strings.Contains(out, `\Übertragung\Gesendete Bytes","\\`) || !strings.Contains(out, `"42.000000","7.000000"`) {
		t.Errorf("typeperf -lang 007: exit %d, stderr %q\n%s", code, errs, out)
	}
	if out, _, code := runPerfcEnv(t, env, "lodctr", "/q"); code != 0 || !strings.Contains(out, "PerfcTransfer") || !strings.Contains(out, "First Counter") {
		t.Errorf("lodctr /q: exit %d\n%s", code, out)
	}
	if out, errs, code := runPerfcEnv(t, env, "unlodctr", "PerfcTransfer"); code != 0 || !strings.Contains(out, "Successfully uninstalled") {
		t.Fatalf("unlodctr: exit %d, %q %q", code, out, errs)
	}
	if out, _, code := typeperf(); code == 0 {
		t.Errorf("typeperf after unlodctr: exit 0\n%s", out)
	}

	bad := filepath.Join(t.TempDir(), "bad.ini")
	os.WriteFile(bad, []byte("[info]\ndrivername=x\nsymbolfile=x.h\n[languages]\n1033=English\n[text]\n"), 0o644)
	if _, errs, code := runPerfcEnv(t, env, "lodctr", bad, "/exec:"+sh); code != 1 || !strings.Contains(errs, bad+`:5: [languages]: "1033" is not a language id`) {
		t.Errorf("a bad .ini: exit %d, stderr %q", code, errs)
	}
}
