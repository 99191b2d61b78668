package pla

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// TestTaskCounterBound: the counter path a task gets, in its words and
// in $PERFC_ALERT_COUNTER, is at most maxTaskCounter bytes, cut on a rune
// boundary, whatever instance name another user chose; the kernel would
// refuse one argument over 128 KiB and the task would never run (issue
// 43 item 1).
func TestTaskCounterBound(t *testing.T) {
	const bound = 8 << 10
	// want is the longest prefix of whole runes of at most bound bytes.
	want := func(s string) string {
		out := ""
		for _, r := range s {
			if len(out)+utf8.RuneLen(r) > bound {
				break
			}
			out += string(r)
		}
		return out
	}
	cases := []struct{ name, counter string }{
		{"short", `\Process(bash)\Working Set`},
		{"argv0 of 128 KiB", `\Process(` + strings.Repeat("x", 128<<10) + `)\Working Set`},
		{"cut inside a rune", `\Process(` + strings.Repeat("€", 4000) + `)\Working Set`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			set := alertSet("bound", `\Process(*)\Working Set>100`)
			set.Alert.Task, set.Alert.TaskArguments, set.Alert.TaskUserTextArguments = "/bin/true", "{counter} c={counter} {usertext}", "u={counter}"
			paths := alertPaths(set)
			o, err := newAlertOutput(set, newActivity(stateDir(t), set.Name, nil), nil, nil, nil, nil, paths, paths)
			if err != nil {
				t.Fatal(err)
			}
			argv, env, err := o.taskCommand(&alertEntry{counter: tc.counter, value: 500}, "fired", time.Unix(0, 0))
			if err != nil {
				t.Fatal(err)
			}
			w := want(tc.counter)
			wantArgv := []string{"/bin/true", w, "c=" + w, "u=" + w}
			if len(argv) != len(wantArgv) {
				t.Fatalf("argv of %d words, want %d", len(argv), len(wantArgv))
			}
			for i := range argv {
				if argv[i] != wantArgv[i] {
					t.Errorf("word %d: %d bytes, want %d", i, len(argv[i]), len(wantArgv[i]))
				}
			}
			found := false
			for _, kv := range env {
				if v, ok := strings.CutPrefix(kv, "PERFC_ALERT_COUNTER="); ok {
					found = true
					if v != w {
						t.Errorf("PERFC_ALERT_COUNTER: %d bytes, want %d", len(v), len(w))
					}
				}
			}
			if !found {
				t.Error("no PERFC_ALERT_COUNTER")
			}
		})
	}
}
