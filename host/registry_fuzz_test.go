package host

import (
	"testing"

	"github.com/perfcounters/perfcounters/engine"
)

// FuzzParseQueryValue: a value name a server is asked for either parses
// to a query the engine can answer (never Foreign) or is a *ValueError;
// nothing panics, and a parsed value is what engine.ParseQuery reads.
func FuzzParseQueryValue(f *testing.F) {
	for _, s := range []string{"Global", "Costly", "Counter", "Help 009", "2 4 238", "Foreign db7 238", "", " ", "Counter ../../etc", "4294967296", "global 1", "Counter 12345"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		q, err := ParseQueryValue(v)
		if err != nil {
			ve, ok := err.(*ValueError)
			if !ok || ve.Error() == "" || !ve.BadValue() {
				t.Fatalf("%q: error %#v, want a *ValueError with a reason", v, err)
			}
			return
		}
		if q.Kind == engine.QueryForeign {
			t.Fatalf("%q: Foreign accepted", v)
		}
		e, err := engine.ParseQuery(v)
		if err != nil || e.Kind != q.Kind || len(e.Indexes) != len(q.Indexes) {
			t.Fatalf("%q: %+v, the engine reads %+v (%v)", v, q, e, err)
		}
	})
}
