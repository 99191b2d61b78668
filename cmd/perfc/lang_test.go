package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/manifest"
	"github.com/perfcounters/perfcounters/provider"
	"github.com/perfcounters/perfcounters/shm/shmtest"
	statedir "github.com/perfcounters/perfcounters/state"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

// TestLocalizedNames is issue 29's "counter names in every language the
// machine has": a manifest with an en-US and a de-DE string table is
// registered; its provider publishes two values; typeperf reads them by
// the German path (-lang 007), by the English path with -lang 007, and by
// the English path without it, and every read gives the same values. The
// title lists "Counter 007" and "Help 007" read back through the registry
// list parser hold the German names at the English names' indexes, and
// say which names German lacks; unlodctr takes the German names away too.
func TestLocalizedNames(t *testing.T) {
	state := t.TempDir()
	seg := shmtest.Dir(t)
	vars := map[string]string{"PERFC_STATE_DIR": state, "PERFC_SHM_DIR": seg, "LANG": "C.UTF-8"}
	const man = "testdata/localized.man"
	if out, errs, code := runEnv(vars, "lodctr", "/m:"+man); code != 0 {
		t.Fatalf("lodctr: %d %s %s", code, out, errs)
	}
	m, err := manifest.ParseFile(man)
	if err != nil {
		t.Fatal(err)
	}
	p, err := provider.Start(m.Providers[0].GUID, provider.Options{Dir: seg, MaxInstances: 4, HeapSize: 1 << 16})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	set, err := p.AddSet(m.Providers[0].CounterSets[0])
	if err != nil {
		t.Fatal(err)
	}
	in := set.Single()
	if err := in.Set(1, 17); err != nil {
		t.Fatal(err)
	}
	if err := in.Set(2, 3); err != nil {
		t.Fatal(err)
	}

	// typeperf: the values of each way of naming the counters, and the
	// header it writes.
	read := func(t *testing.T, vars map[string]string, paths ...string) (header, values []string) {
		t.Helper()
		args := append([]string{"typeperf", "-sc", "1"}, paths...)
		out, errs, code := runEnv(vars, args...)
		if code != 0 {
			t.Fatalf("typeperf %q: exit %d\n%s\n%s", paths, code, out, errs)
		}
		rows, err := csv.NewReader(strings.NewReader(strings.TrimSpace(strings.Split(out, "Exiting")[0]))).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("typeperf %q: %d rows (%v):\n%s", paths, len(rows), err, out)
		}
		return rows[0][1:], rows[1][1:]
	}
	de := map[string]string{"PERFC_STATE_DIR": state, "PERFC_SHM_DIR": seg, "LANG": "de_DE.UTF-8"}
	cases := []struct {
		name       string
		vars       map[string]string
		args       []string
		wantHeader []string // counter parts of the header's paths
	}{
		{"German paths, -lang 007", vars, []string{"-lang", "007", `\Perfc Druckwarteschlange\Aufträge`, `\Perfc Druckwarteschlange\Lost Jobs`},
			[]string{`\Perfc Druckwarteschlange\Aufträge`, `\Perfc Druckwarteschlange\Lost Jobs`}},
		{"English paths, -lang de-DE", vars, []string{"-lang", "de-DE", `\Perfc Print Queue\Jobs`, `\Perfc Print Queue\Lost Jobs`},
			[]string{`\Perfc Druckwarteschlange\Aufträge`, `\Perfc Druckwarteschlange\Lost Jobs`}},
		{"German paths, the locale", de, []string{`\Perfc Druckwarteschlange\Aufträge`, `\Perfc Druckwarteschlange\Lost Jobs`},
			[]string{`\Perfc Druckwarteschlange\Aufträge`, `\Perfc Druckwarteschlange\Lost Jobs`}},
		{"English paths, English", vars, []string{`\Perfc Print Queue\Jobs`, `\Perfc Print Queue\Lost Jobs`},
			[]string{`\Perfc Print Queue\Jobs`, `\Perfc Print Queue\Lost Jobs`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			header, values := read(t, c.vars, c.args...)
			if strings.Join(values, ",") != "17.000000,3.000000" {
				t.Errorf("values %q, want 17.000000,3.000000", values)
			}
			for i, h := range header {
				if i >= len(c.wantHeader) || !strings.HasSuffix(h, c.wantHeader[i]) {
					t.Errorf("header %q, want paths ending %q", header, c.wantHeader)
					break
				}
			}
		})
	}
	if _, errs, code := runEnv(vars, "typeperf", "-sc", "1", "-lang", "011", `\Perfc Print Queue\Jobs`); code != 0 || !strings.Contains(errs, "no counter names are registered in language 011 (ja)") {
		t.Errorf("-lang 011: exit %d, stderr %q; want a warning that Japanese has no names", code, errs)
	}
	if _, errs, code := runEnv(vars, "typeperf", "-lang", "klingon", `\Perfc Print Queue\Jobs`); code != 2 || !strings.Contains(errs, "unknown language") {
		t.Errorf("-lang klingon: exit %d, stderr %q; want a usage error", code, errs)
	}
	// typeperf -q and -qx list in the language too (issue 44: they ignored
	// -lang), and take the object by its name there.
	for _, q := range []string{"-q", "-qx"} {
		out, errs, code := runEnv(vars, "typeperf", q, "-lang", "007", "Perfc Druckwarteschlange")
		if code != 0 || !strings.Contains(out, `\Perfc Druckwarteschlange\Aufträge`+"\n") || strings.Contains(out, "Print Queue") {
			t.Errorf("typeperf %s -lang 007: exit %d\n%s%s", q, code, out, errs)
		}
	}

	// The title lists, as a Windows program reads Perflib's subkeys.
	regs, err := readRegistrations(state)
	if err != nil || len(regs) != 1 {
		t.Fatalf("%d registrations (%v)", len(regs), err)
	}
	setIdx, jobsIdx, lostIdx := regs[0].Sets[0].NameIndex, regs[0].Sets[0].Counters[0].NameIndex, regs[0].Sets[0].Counters[1].NameIndex
	list := func(value string) (*titles.DB, string) {
		t.Helper()
		f := filepath.Join(t.TempDir(), "list")
		_, errs, code := runEnv(vars, "query", "-o", f, value)
		if code != 0 {
			t.Fatalf("query %q: exit %d: %s", value, code, errs)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		db, err := titles.ParseMultiSZ(b)
		if err != nil {
			t.Fatalf("query %q: the list does not parse: %v", value, err)
		}
		// The same bytes as a plain REG_MULTI_SZ (UTF-16LE strings, each
		// NUL-terminated, an empty one last), read without the titles
		// package: index and name pairs.
		raw, err := utf16le.DecodeMultiSZ(b)
		if err != nil || len(raw)%2 != 0 {
			t.Fatalf("query %q: not a MULTI_SZ of pairs: %v (%d strings)", value, err, len(raw))
		}
		for i := 0; i < len(raw); i += 2 {
			n, err := strconv.ParseUint(raw[i], 10, 32)
			if err != nil || db.Name(uint32(n)) != raw[i+1] && n != 1 {
				t.Errorf("query %q: pair %q %q does not read back", value, raw[i], raw[i+1])
			}
		}
		return db, errs
	}
	names, notes := list("Counter 007")
	if got := names.Name(setIdx); got != "Perfc Druckwarteschlange" {
		t.Errorf("Counter 007 at %d: %q", setIdx, got)
	}
	if got := names.Name(jobsIdx); got != "Aufträge" {
		t.Errorf("Counter 007 at %d: %q", jobsIdx, got)
	}
	if got := names.Name(lostIdx); got != "" {
		t.Errorf("Counter 007 at %d: %q, want none (the de-DE table lacks it)", lostIdx, got)
	}
	if got := names.Name(238); got != "Prozessor" {
		t.Errorf("Counter 007 names the built-in Processor %q, want Windows' German name Prozessor (titles/localized)", got)
	}
	if !strings.Contains(notes, "language 007 (de) has no name for") || !strings.Contains(notes, "10 File Read Operations/sec") {
		t.Errorf("Counter 007 notes %q: want the English names German lacks", notes)
	}
	help := mustHelp(t, vars, names)
	if got := help.Help(jobsIdx + 1); got != "Wartende Aufträge." {
		t.Errorf("Help 007 at %d: %q", jobsIdx+1, got)
	}
	if en, _ := list("Counter 009"); en.Name(jobsIdx) != "Jobs" {
		t.Errorf("Counter 009 at %d: %q, want Jobs", jobsIdx, en.Name(jobsIdx))
	}

	// Unregistering takes the German names with the English ones.
	if out, errs, code := runEnv(vars, "unlodctr", "/m:"+man); code != 0 {
		t.Fatalf("unlodctr: %d %s %s", code, out, errs)
	}
	db, err := statedir.LangTitles(state, 0x007)
	if err != nil || db == nil {
		t.Fatalf("German titles after unlodctr: %v, %v", db, err)
	}
	if db.Name(setIdx) != "" || db.Name(jobsIdx) != "" {
		t.Errorf("German names left after unlodctr: %q %q", db.Name(setIdx), db.Name(jobsIdx))
	}
}

// mustHelp reads "Help 007" through the registry list parser into db,
// the names of "Counter 007", as a Windows program pairs the two lists.
func mustHelp(t *testing.T, vars map[string]string, db *titles.DB) *titles.DB {
	t.Helper()
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"query", "-o", "-", "Help 007"}, &env{stdout: &o, stderr: &e, stdin: strings.NewReader(""), getenv: func(k string) string { return vars[k] }})
	if code != 0 {
		t.Fatalf("query Help 007: exit %d: %s", code, e.String())
	}
	if err := db.SetHelpMultiSZ(o.Bytes()); err != nil {
		t.Fatalf("Help 007 does not parse: %v", err)
	}
	return db
}
