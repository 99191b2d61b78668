package query

import (
	"errors"
	"testing"

	"github.com/perfcounters/perfcounters/engine"
)

// TestPartialNote: an object with placeholders and no reason gets a note
// that says how many instances hold them (issue 42: "partial data: " and
// nothing after it); a reason, or another error, is shown as it is.
func TestPartialNote(t *testing.T) {
	none := &engine.PartialError{}
	tests := []struct {
		name string
		p    engine.Problem
		want string
	}{
		{"three instances", engine.Problem{NameIndex: 4664, Object: "Control Group", Err: none,
			Missing: []engine.Missing{{Instance: 0}, {Instance: 2, Counters: []uint32{6}}, {Instance: 2}, {Instance: 5}}},
			"object Control Group (4664): 3 instances hold placeholders for values they do not have (nothing failed)"},
		{"one instance", engine.Problem{NameIndex: 230, Object: "Process", Err: none, Missing: []engine.Missing{{Instance: 0}}},
			"object Process (230): 1 instance holds placeholders for values it does not have (nothing failed)"},
		{"single-instance object", engine.Problem{NameIndex: 4, Object: "Memory", Err: none, Missing: []engine.Missing{{Instance: -1}}},
			"object Memory (4): it holds placeholders for values it does not have (nothing failed)"},
		{"a reason", engine.Problem{NameIndex: 230, Object: "Process", Err: &engine.PartialError{Reasons: []string{"io of 3 processes not readable"}}},
			"object Process (230): partial data: io of 3 processes not readable"},
		{"another error", engine.Problem{NameIndex: 230, Object: "Process", Err: errors.New("boom")},
			"object Process (230): boom"},
	}
	for _, tc := range tests {
		if got := partialNote(tc.p); got != tc.want {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.name, got, tc.want)
		}
	}
}
