package main

import (
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	goldenfile "github.com/perfcounters/perfcounters/internal/golden"
)

// TestParseFlagsWindowsSyntax: every spelling a Windows administrator
// types reaches the same option.
func TestParseFlagsWindowsSyntax(t *testing.T) {
	type result struct {
		SC   int
		SI   string
		F    string
		Q    bool
		Out  string
		Pos  []string
		Help bool
	}
	parse := func(args ...string) (result, error) {
		fs := (&command{name: "typeperf"}).flags(io.Discard)
		var r result
		fs.IntVar(&r.SC, "sc", 0, "")
		fs.StringVar(&r.SI, "si", "1", "")
		fs.StringVar(&r.F, "f", "CSV", "")
		fs.BoolVar(&r.Q, "q", false, "")
		fs.StringVar(&r.Out, "o", "", "")
		pos, err := parseFlags(fs, args)
		r.Pos = pos
		if err == errHelp {
			r.Help, err = true, nil
		}
		return r, err
	}
	tests := []struct {
		args []string
		want result
	}{
		{[]string{"-sc", "5"}, result{SC: 5, SI: "1", F: "CSV"}},
		{[]string{"/sc", "5"}, result{SC: 5, SI: "1", F: "CSV"}},
		{[]string{"/SC", "5"}, result{SC: 5, SI: "1", F: "CSV"}},
		{[]string{"-Sc", "5"}, result{SC: 5, SI: "1", F: "CSV"}},
		{[]string{"--sc", "5"}, result{SC: 5, SI: "1", F: "CSV"}},
		{[]string{"/sc:5"}, result{SC: 5, SI: "1", F: "CSV"}},
		{[]string{"-sc=5"}, result{SC: 5, SI: "1", F: "CSV"}},
		{[]string{"-SI", "2"}, result{SI: "2", F: "CSV"}},
		{[]string{"/si", "00:01:30"}, result{SI: "00:01:30", F: "CSV"}},
		{[]string{"/f", "TSV"}, result{SI: "1", F: "TSV"}},
		{[]string{"/q", "Memory"}, result{SI: "1", F: "CSV", Q: true, Pos: []string{"Memory"}}},
		{[]string{"/Q", "Memory"}, result{SI: "1", F: "CSV", Q: true, Pos: []string{"Memory"}}},
		// Options after positional arguments, as the Windows tools allow.
		{[]string{`\Memory\Available MBytes`, "/sc", "1", `\Processor(_Total)\% Processor Time`}, result{SC: 1, SI: "1", F: "CSV", Pos: []string{`\Memory\Available MBytes`, `\Processor(_Total)\% Processor Time`}}},
		// An absolute file name is not an option; a value is never one.
		{[]string{"/tmp/x.csv", "-o", "/q"}, result{SI: "1", F: "CSV", Out: "/q", Pos: []string{"/tmp/x.csv"}}},
		{[]string{"-o", "-"}, result{SI: "1", F: "CSV", Out: "-"}},
		{[]string{"-sc", "-1"}, result{SC: -1, SI: "1", F: "CSV"}},
		{[]string{"", "/", "-"}, result{SI: "1", F: "CSV", Pos: []string{"", "/", "-"}}},
		{[]string{"--", "-sc", "/q"}, result{SI: "1", F: "CSV", Pos: []string{"-sc", "/q"}}},
		// Help in every spelling.
		{[]string{"/?"}, result{SI: "1", F: "CSV", Help: true}},
		{[]string{"-?"}, result{SI: "1", F: "CSV", Help: true}},
		{[]string{"-h"}, result{SI: "1", F: "CSV", Help: true}},
		{[]string{"/H"}, result{SI: "1", F: "CSV", Help: true}},
		{[]string{"--help"}, result{SI: "1", F: "CSV", Help: true}},
		{[]string{`\Memory\x`, "/?"}, result{SI: "1", F: "CSV", Help: true}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, err := parse(tt.args...)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want.Help {
				if !got.Help {
					t.Errorf("help not shown")
				}
				return
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-nope"}, "unknown option -nope"},
		{[]string{"-sc"}, "option -sc needs a value"},
		{[]string{"/sc", "x"}, `invalid value "x" for flag -sc`},
	} {
		_, err := parse(tt.args...)
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), tt.msg) || !errorsAs(err, &ue) {
			t.Errorf("%q: err = %v, want usage error %q", tt.args, err, tt.msg)
		}
	}
}

func errorsAs(err error, ue *usageError) bool {
	u, ok := err.(usageError)
	if ok {
		*ue = u
	}
	return ok
}

// TestHelpScreens compares each command's /? with its golden screen and
// checks that every spelling of help prints the same, on stdout, exit 0.
func TestHelpScreens(t *testing.T) {
	for _, words := range helpCommands {
		name := strings.Join(words, " ")
		t.Run(name, func(t *testing.T) {
			out, errs, code := runPerfc(t, append(slices.Clone(words), "/?")...)
			if code != 0 || errs != "" {
				t.Fatalf("exit %d, stderr %q", code, errs)
			}
			golden(t, "testdata/help-"+strings.ReplaceAll(name, " ", "-")+".golden", out)
			for _, spelling := range []string{"-?", "-h", "/H", "--help", "-HELP"} {
				o, e, c := runPerfc(t, append(slices.Clone(words), spelling)...)
				if c != 0 || o != out || e != "" {
					t.Errorf("%s %s: exit %d, stderr %q, output differs from /?", name, spelling, c, e)
				}
			}
			if !strings.Contains(out, "Usage:\n") || !strings.Contains(out, "Options:\n  -?") || !strings.Contains(out, "Exit status:\n  0  success\n") {
				t.Errorf("screen lacks its sections:\n%s", out)
			}
		})
	}
	out, _, code := runPerfc(t, "/?")
	if code != 0 {
		t.Fatalf("perfc /?: exit %d", code)
	}
	golden(t, "testdata/help-perfc.golden", out)
	for _, c := range []string{"typeperf", "relog", "logman", "query", "dump", "lodctr", "unlodctr", "ctrpp", "explain", "perfmon", "version", "completion", "serve"} {
		if !strings.Contains(out, "\n  "+c+" ") {
			t.Errorf("perfc /? does not list %s", c)
		}
	}
	if strings.Contains(out, "__complete") {
		t.Error("perfc /? lists the hidden completion helper")
	}
	if o, _, c := runPerfc(t, "help", "typeperf"); c != 0 || !strings.Contains(o, "perfc typeperf { <counter") {
		t.Errorf("perfc help typeperf: exit %d\n%s", c, o)
	}
}

// golden compares got with a golden file (internal/golden).
func golden(t *testing.T, file, got string) { t.Helper(); goldenfile.Check(t, file, got) }

// FuzzCommandLine: no command line makes the option parser or the relog
// counter-list splitter panic, and the splitter never invents text.
func FuzzCommandLine(f *testing.F) {
	f.Add("/sc\x005\x00-SI\x002\x00\\Memory\\x\x00/?")
	f.Add("-o\x00-\x00--\x00/q")
	f.Add(`"\A\b c" \D\e` + "\x00/c:\\x")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		fs := (&command{name: "fuzz"}).flags(io.Discard)
		fs.Int("sc", 0, "")
		fs.String("si", "1", "")
		fs.Bool("q", false, "")
		var c stringList
		fs.Var(&c, "c", "")
		parseFlags(fs, args)
		for _, p := range splitCounterLists(args) {
			for _, r := range p {
				if !strings.ContainsRune(line, r) {
					t.Fatalf("splitCounterLists(%q) made %q", args, p)
				}
			}
		}
	})
}
