package host

import (
	"context"
	"strings"
	"testing"

	"github.com/perfcounters/perfcounters/calc"
	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
)

// TestBuiltinNamesInLanguages is issue 44's "built-in objects have English
// names only": the language databases list the built-in objects and
// counters in the names Windows gives them (titles/localized), at the
// indexes they have in English, and a path copied from a German or French
// perfmon reads the same counter as the English one.
func TestBuiltinNamesInLanguages(t *testing.T) {
	h := openHost(t)
	en := h.Titles()
	cases := []struct {
		lang          titles.Lang
		object, ctr   string // a Windows object and counter, in English
		path, english string
	}{
		{0x07, "Processor", "% Processor Time", `\Prozessor(_Total)\Prozessorzeit (%)`, `\Processor(_Total)\% Processor Time`},
		{0x07, "Memory", "Available MBytes", `\Arbeitsspeicher\Verfügbare MB`, `\Memory\Available MBytes`},
		{0x07, "LogicalDisk", "Avg. Disk sec/Read", `\Logischer Datenträger(*)\Mittlere Sek./Lesevorgänge`, `\LogicalDisk(*)\Avg. Disk sec/Read`},
		{0x07, "Process", "ID Process", `\Prozess(*)\Prozesskennung`, `\Process(*)\ID Process`},
		{0x0C, "Processor", "% Processor Time", `\Processeur(_Total)\% temps processeur`, `\Processor(_Total)\% Processor Time`},
		{0x0C, "Processor Information", "% Processor Time", `\Informations sur le processeur(_Total)\% temps processeur`, `\Processor Information(_Total)\% Processor Time`},
		{0x0C, "Memory", "Available MBytes", `\Mémoire\Mégaoctets disponibles`, `\Memory\Available MBytes`},
		{0x0C, "Network Interface", "Bytes Total/sec", `\Interface réseau(*)\Total des octets/s`, `\Network Interface(*)\Bytes Total/sec`},
	}
	for _, c := range cases {
		t.Run(c.lang.String()+" "+c.path, func(t *testing.T) {
			local := h.Engine.LangTitles(c.lang)
			if local == nil {
				t.Fatalf("no database of language %s", c.lang)
			}
			for _, name := range []string{c.object, c.ctr} {
				want, ok := titles.LocalizedName(c.lang, name)
				i, _ := en.Index(name)
				if !ok || local.Name(i) != want {
					t.Errorf("%d %s: named %q in %s, want %q", i, name, local.Name(i), c.lang, want)
				}
			}
			q := pdh.OpenQuery(h.Source())
			q.SetTitles(titles.Over(en, local), en)
			loc, err := q.AddCounter(c.path)
			if err != nil {
				t.Fatal(err)
			}
			eng, err := q.AddCounter(c.english)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if err := q.Collect(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			a, b := loc.FormattedArray(calc.FmtDouble), eng.FormattedArray(calc.FmtDouble)
			if len(a) == 0 || len(a) != len(b) {
				t.Fatalf("%s: %d instances, %s: %d", c.path, len(a), c.english, len(b))
			}
		})
	}
	// "Counter 007" lists them.
	r, err := h.QueryValue(context.Background(), "Counter 007")
	if err != nil {
		t.Fatal(err)
	}
	s, _ := utf16le.Decode(r.Block)
	if !strings.Contains(s, "238\x00Prozessor\x00") || !strings.Contains(s, "\x00Prozessorzeit (%)\x00") {
		t.Errorf("Counter 007 does not list Prozessor and Prozessorzeit (%%): %.200q", s)
	}
	if en.Name(238) != "Processor" {
		t.Errorf("the English database changed: 238 is %q", en.Name(238))
	}
}

// TestLocalizedNamesAreBuiltin: the recorded names are those of the
// objects and counters perfc builds in, nothing more (a name the tables
// add must be a built-in one).
func TestLocalizedNamesAreBuiltin(t *testing.T) {
	builtin := map[string]bool{}
	for _, s := range builtinObjects() {
		builtin[strings.ToLower(s.Name)] = true
		for _, c := range s.Counters {
			builtin[strings.ToLower(c.Name)] = true
		}
	}
	en := titles.English()
	for _, l := range titles.LocalizedLangs() {
		n := 0
		for _, e := range en.Entries() {
			if _, ok := titles.LocalizedName(l, e.Name); ok {
				n++
				if !builtin[strings.ToLower(e.Name)] {
					t.Errorf("%s: %q is not a built-in name", l, e.Name)
				}
			}
		}
		db, err := BuiltinLangTitles(nil, l)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("language %s: %d built-in names", l, db.Len())
		if db.Len() == 0 {
			t.Errorf("%s: no built-in names", l)
		}
	}
}
