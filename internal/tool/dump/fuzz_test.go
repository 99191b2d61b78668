package dump

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfcounters/perfcounters/perfdata"
	"github.com/perfcounters/perfcounters/titles"
)

// FuzzWrite: Write never panics, fails only with the codec's *FormatError,
// and for a block it accepts the JSON form is valid, holds the block's
// objects, and has no more values than the block has bytes (the cost bound).
func FuzzWrite(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(windowsDir, "*.bin"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(hostileBlock(3, 4, 40, 4))
	f.Add(hostileBlock(2, 1, 48, 8))
	db := titles.English()
	f.Fuzz(func(t *testing.T, data []byte) {
		var text, js bytes.Buffer
		errText := Write(&text, "f.bin", data, Options{Titles: db})
		errJSON := Write(&js, "f.bin", data, Options{Titles: db, JSON: true})
		if (errText == nil) != (errJSON == nil) {
			t.Fatalf("text: %v, JSON: %v", errText, errJSON)
		}
		if errText != nil {
			var fe *perfdata.FormatError
			if !errors.As(errText, &fe) {
				t.Fatalf("error %T %v is not a *perfdata.FormatError", errText, errText)
			}
			return
		}
		var b Block
		if err := json.Unmarshal(js.Bytes(), &b); err != nil {
			t.Fatalf("JSON output does not decode: %v", err)
		}
		blk, _ := perfdata.Parse(data)
		if len(b.Objects) != blk.NumObjects() {
			t.Fatalf("%d objects in the JSON, %d in the block", len(b.Objects), blk.NumObjects())
		}
		values := 0
		for _, o := range b.Objects {
			values += len(o.Values)
			for _, in := range o.Instances {
				values += len(in.Values)
			}
		}
		if values > len(data) {
			t.Fatalf("%d values from a %d-byte block", values, len(data))
		}
	})
}
