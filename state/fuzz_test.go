package state

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzParseRecord feeds arbitrary bytes to the registration file reader:
// it never panics, every entry it keeps is a valid registration, and
// writing the file back and reading it again gives the same entries
// (damaged ones kept as written).
func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"version": 1, "providers": [{"guid": "{0A1B2C3D-0000-4000-8000-000000000001}", "name": "P", "source": "s", "manifest": "manifests/{0A1B2C3D-0000-4000-8000-000000000001}-0123456789ab.man", "sets": [{"guid": "{0A1B2C3D-0000-4000-8000-000000000011}", "name": "S", "index": 4660, "counters": [{"id": 1, "name": "C", "index": 4662}]}], "publishers": [0]}]}`))
	f.Add([]byte(`{"providers": [{"guid": "x"}], "version": 1}`))
	f.Add([]byte(`{"version": 1, "providers": [{"guid": "{0A1B`))
	f.Add([]byte(`{"version": 2}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		rec := parseRecord("providers.json", b, false, (*Registration).validate)
		for _, e := range rec.entries {
			if e.raw == nil {
				if err := e.reg.validate(); err != nil {
					t.Fatalf("kept an invalid entry: %v", err)
				}
			} else if e.err == nil || !json.Valid(e.raw) {
				t.Fatalf("a damaged entry without its error, or not JSON: %q", e.raw)
			}
		}
		if rec.damaged != nil {
			return
		}
		out, err := marshalRecord(rec.entries)
		if err != nil {
			t.Fatal(err)
		}
		back := parseRecord("providers.json", out, false, (*Registration).validate)
		if back.damaged != nil || len(back.entries) != len(rec.entries) {
			t.Fatalf("rewritten file reads %d entries (%v), want %d", len(back.entries), back.damaged, len(rec.entries))
		}
		for i := range rec.entries {
			if !reflect.DeepEqual(rec.entries[i].reg, back.entries[i].reg) || (rec.entries[i].raw == nil) != (back.entries[i].raw == nil) {
				t.Fatalf("entry %d changed: %+v -> %+v", i, rec.entries[i].reg, back.entries[i].reg)
			}
		}
	})
}
