package relog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/titles"
)

// TestLocalizedCSVToEnglish is issue 44's "relog LOCALIZED.csv -lang 009
// writes wrong names and reports success": a text log has no title
// indexes, so its names are found in the log's language (German here, the
// names recorded in titles/localized/007.tsv) and go to English through
// the index Windows gives them; a name no language maps (Russian, which
// has no recorded names) keeps its own index, which no English database
// names, so relog -lang 009 (titles.Over the log's names, the English
// ones, as cmd/perfc builds it) keeps it as written and
// titles.Missing names it for the warning.
func TestLocalizedCSVToEnglish(t *testing.T) {
	ctx := context.Background()
	cols := []string{
		`\\PC\Prozessor(_Total)\Prozessorzeit (%)`,
		`\\PC\Arbeitsspeicher\Verfügbare MB`,
		`\\PC\Logischer Datenträger(C:)\Mittlere Sek./Lesevorgänge`,
		`\\PC\Процессор(_Total)\% загруженности процессора`,
	}
	var b strings.Builder
	b.WriteString(`"(PDH-CSV 4.0) (Coordinated Universal Time)(0)"`)
	for _, c := range cols {
		b.WriteString(`,"` + c + `"`)
	}
	b.WriteString("\r\n\"12/14/2012 23:06:40.000\",\"1\",\"2\",\"3\",\"4\"\r\n\"12/14/2012 23:06:41.000\",\"5\",\"6\",\"7\",\"8\"\r\n")
	name := filepath.Join(t.TempDir(), "de.csv")
	if err := os.WriteFile(name, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	in, err := perflog.Open(ctx, []string{name}, perflog.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	logDB := in.Source.Titles()
	// The English names the German ones map to, by the recorded table.
	en := func(de string) string {
		for _, e := range titles.English().Entries() {
			if n, ok := titles.LocalizedName(0x07, e.Name); ok && n == de {
				return e.Name
			}
		}
		t.Fatalf("%q is not a recorded German name", de)
		return ""
	}
	want := `"(PDH-CSV 4.0) (Coordinated Universal Time)(0)",` +
		`"\\PC\` + en("Prozessor") + `(_Total)\` + en("Prozessorzeit (%)") + `",` +
		`"\\PC\` + en("Arbeitsspeicher") + `\` + en("Verfügbare MB") + `",` +
		`"\\PC\` + en("Logischer Datenträger") + `(C:)\` + en("Mittlere Sek./Lesevorgänge") + `",` +
		`"\\PC\Процессор(_Total)\% загруженности процессора"` + "\n" +
		"\"12/14/2012 23:06:40.000\",\"1\",\"2\",\"3\",\"4\"\n\"12/14/2012 23:06:41.000\",\"5\",\"6\",\"7\",\"8\"\n"
	// The English target is this machine's English names: Windows' list
	// with names of its own at indexes after Windows' last, as the host's
	// built-in objects have them.
	target := titles.English()
	for _, n := range []string{"Processor Information", "Process V2", "Control Group"} {
		if _, err := target.Register(n, ""); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	if _, _, err := Run(ctx, in.Source, Options{Titles: titles.Over(logDB, target), Location: time.UTC}, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Errorf("got\n%s\nwant\n%s", out.String(), want)
	}
	var kept []string
	for _, i := range titles.Missing(logDB, target) {
		kept = append(kept, logDB.Name(i))
	}
	if strings.Join(kept, "|") != "Процессор|% загруженности процессора" {
		t.Errorf("names kept (and warned of): %q, want the Russian ones", kept)
	}
	// Without -lang the log's names are written, and English paths select
	// the German columns.
	if err := in.Source.Recorded().Seek(0); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if _, _, err := Run(ctx, in.Source, Options{Counters: []string{`\Memory\Available MBytes`}, Location: time.UTC}, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"\\PC\Arbeitsspeicher\Verfügbare MB"`) || strings.Count(out.String(), "\n") != 3 {
		t.Errorf("-c with an English path over a German log:\n%s", out.String())
	}
}

// TestLocalizedPathsOverLog is relog -c with paths in German and in
// French over a log of English Windows' indexes (238 Processor, 6 %
// Processor Time), with -lang naming the output in the language
// (titles.Over the log's names, the language's Windows names, as
// state.LangTitles gives them).
func TestLocalizedPathsOverLog(t *testing.T) {
	ctx := context.Background()
	files := processorBlocks(t, t.TempDir(), 238, 6, []uint64{0, 5_000_000, 12_500_000})
	rows := "\"12/14/2012 23:06:40.000\",\" \"\n\"12/14/2012 23:06:41.000\",\"50\"\n\"12/14/2012 23:06:42.000\",\"25\"\n"
	for _, c := range []struct {
		lang       titles.Lang
		path, want string
	}{
		{0x07, `\Prozessor(*)\Prozessorzeit (%)`, `\\PC13\Prozessor(3)\Prozessorzeit (%)`},
		{0x0C, `\Processeur(*)\% temps processeur`, `\\PC13\Processeur(3)\% temps processeur`},
	} {
		in, err := perflog.Open(ctx, files, perflog.OpenOptions{Titles: titles.English()})
		if err != nil {
			t.Fatal(err)
		}
		local := titles.Localize(titles.English(), c.lang, nil)
		var out bytes.Buffer
		_, _, err = Run(ctx, in.Source, Options{Counters: []string{c.path}, Titles: titles.Over(in.Source.Titles(), local), Location: time.UTC}, &out)
		in.Close()
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		want := "\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\",\"" + c.want + "\"\n" + rows
		if out.String() != want {
			t.Errorf("%s: got\n%s\nwant\n%s", c.path, out.String(), want)
		}
	}
}
