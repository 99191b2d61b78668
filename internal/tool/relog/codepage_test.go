package relog

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/perflog/pdhcsv"
)

// codePageLogs are text logs of localized Windows (ANSI code pages,
// UTF-16) and of irregular writers (../../../perflog/pdhcsv/testdata/
// codepage/README.md).
const codePageLogs = "../../../perflog/pdhcsv/testdata/codepage"

// codePageCases are the fixtures with the names relog must write for
// them, spelled here in UTF-8, and a counter as a user types it for -c.
var codePageCases = []struct {
	file  string
	names []string
	typed string // -c, with a wildcard
}{
	{"es-cp1252.csv", []string{`\\PC\Disco físico(0 C:)\% de tiempo de disco`, `\\PC\Interfaz de red(Conexión de área local)\Bytes enviados/s`}, `\\PC\Disco físico(*)\% de tiempo de disco`},
	{"ru-cp1251.csv", []string{`\\ПК\Процессор(_Total)\% загруженности процессора`, `\\ПК\Физический диск(0 C:)\Текущая длина очереди диска`}, `\\ПК\Процессор(*)\% загруженности процессора`},
	{"ru-cp1251.tsv", []string{`\\ПК\Память\Доступно байт`}, `\\пк\память\доступно байт`},
	{"ru-cp1251-zone-cut.csv", []string{`\\ПК\Процессор(_Total)\% загруженности процессора`}, `\\ПК\Физический диск(*)\Текущая длина очереди диска`},
	{"ja-cp932.csv", []string{`\\PC\プロセッサ(_Total)\% プロセッサ時間`, `\\PC\PhysicalDisk(0 C:)\現在のディスク キューの長さ`}, `\\PC\プロセッサ(*)\% プロセッサ時間`},
	{"ko-cp949.csv", []string{`\\PC\프로세서(_Total)\% 프로세서 시간`, `\\PC\실제 디스크(0 C:)\현재 디스크 큐 길이`}, `\\PC\프로세서(*)\% 프로세서 시간`},
	{"zh-cp936.csv", []string{`\\PC\处理器(_Total)\% 处理器时间`}, `\\PC\内存\可用字节`},
	{"utf16le-bom.csv", []string{`\\PC\Disco físico(0 C:)\% de tiempo de disco`, `\\ПК\Процессор(_Total)\% загруженности процессора`, `\\PC\プロセッサ(_Total)\% プロセッサ時間`}, `\\PC\プロセッサ(*)\% プロセッサ時間`},
	{"utf8-bom.csv", []string{`\\ПК\Процессор(_Total)\% загруженности процессора`}, `\\ПК\Процессор(*)\% загруженности процессора`},
	{"utf8.csv", []string{`\\PC\Disco físico(0 C:)\% de tiempo de disco`}, `\\PC\Disco físico(*)\% de tiempo de disco`},
	{"quotes-undoubled.csv", []string{`\\PC\Memory\Available Bytes`}, `\\PC\Memory\Available Bytes`},
	{"trailing-separator.csv", []string{`\\PC\Memory\Available Bytes`}, `\\PC\Processor(*)\% Processor Time`},
	{"header-separator.csv", []string{`\\PC\Memory\Available Bytes`}, `\\PC\Processor(*)\% Processor Time`},
	{"lf.csv", []string{`\\PC\Memory\Available Bytes`}, `\\PC\Memory\*`},
	{"crlf.csv", []string{`\\PC\Memory\Available Bytes`}, `\\PC\Memory\*`},
	{"mixed-line-ends.csv", []string{`\\PC\Memory\Available Bytes`}, `\\PC\Memory\*`},
}

// TestCodePageRelog: each fixture relogs to CSV and TSV with every name
// intact (golden files, and the names above checked in them), through a
// binary log and SQLite to the same CSV, and -c typed in UTF-8 keeps the
// counter it names.
func TestCodePageRelog(t *testing.T) {
	ctx := context.Background()
	for _, tc := range codePageCases {
		t.Run(tc.file, func(t *testing.T) {
			open := func(name string) *perflog.Input {
				t.Helper()
				in, err := perflog.Open(ctx, []string{name}, perflog.OpenOptions{})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { in.Close() })
				return in
			}
			convert := func(in *perflog.Input, opts Options) string {
				t.Helper()
				var out bytes.Buffer
				if _, _, err := Run(ctx, in.Source, opts, &out); err != nil {
					t.Fatal(err)
				}
				return out.String()
			}
			src := filepath.Join(codePageLogs, tc.file)
			in := open(src)
			for _, f := range []pdhcsv.Format{pdhcsv.CSV, pdhcsv.TSV} {
				var warns []string
				got := convert(in, Options{Format: f, Location: in.Location, Warn: func(s string) { warns = append(warns, s) }})
				in.Source.Recorded().Seek(0)
				head, _, _ := strings.Cut(got, "\n")
				for _, n := range tc.names {
					if !strings.Contains(head, `"`+n+`"`) {
						t.Errorf("%s: header %s lacks %s", f, head, n)
					}
				}
				if len(warns) > 0 {
					t.Errorf("%s: warnings %q", f, warns)
				}
				golden(t, filepath.Join("testdata", "codepage", tc.file+"."+strings.ToLower(f.String())+".golden"), got)
			}
			want := convert(in, Options{Location: time.UTC})
			in.Source.Recorded().Seek(0)
			dir := t.TempDir()
			for _, out := range []struct {
				name string
				f    perflog.Format
			}{{filepath.Join(dir, "run.plog"), perflog.BIN}, {"SQL:" + filepath.Join(dir, "run.db") + "!run", perflog.SQL}} {
				relogInto(t, in, out.name, out.f, perflog.CreateOptions{Location: in.Location, Counters: in.Source.Recorded().Counters()})
				in.Source.Recorded().Seek(0)
				if got := convert(open(out.name), Options{Location: time.UTC}); got != want {
					t.Errorf("%s -> CSV differs from text -> CSV:\n%s", out.f, firstDiff([]byte(want), []byte(got)))
				}
			}
			// -c as the user types the name, in UTF-8.
			got := convert(in, Options{Counters: []string{tc.typed}, Location: in.Location})
			in.Source.Recorded().Seek(0)
			head, _, _ := strings.Cut(got, "\n")
			if strings.Count(head, `","`) < 1 || strings.Count(got, "\n") != 3 {
				t.Errorf("-c %s kept nothing:\n%s", tc.typed, got)
			}
			golden(t, filepath.Join("testdata", "codepage", tc.file+".filtered.golden"), got)
		})
	}
}
