package perfdata

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestParseHeader reads the header of a real block from its first bytes
// only, and checks each bound against hand-written header bytes.
func TestParseHeader(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(windowsDir, "s01-0238-Processor.bin"))
	if err != nil {
		t.Fatal(err)
	}
	// Values read by hand from the file (see the README of the conformance data).
	want := Header{LittleEndian: 1, Version: 1, Revision: 1, TotalByteLength: 1080, HeaderLength: 104,
		NumObjectTypes: 1, DefaultObject: 238,
		SystemTime: SystemTime{Year: 2007, Month: 8, DayOfWeek: 2, Day: 14, Hour: 15, Minute: 40, Second: 38, Milliseconds: 659},
		PerfTime:   7178903079, PerfFreq: 3579545, PerfTime100nSec: 128315940386596596, SystemName: "ZACH-PC"}
	for _, n := range []int{104, 200, len(raw)} {
		h, err := ParseHeader(raw[:n])
		if err != nil || h != want {
			t.Errorf("ParseHeader(first %d bytes) = %+v, %v\nwant %+v", n, h, err, want)
		}
	}
	// PerfTime100nSec is UTC and 4 h after the SYSTEMTIME, the writer's local time (EDT).
	if got := FileTimeToTime(want.PerfTime100nSec); !got.Equal(time.Date(2007, 8, 14, 19, 40, 38, 659659600, time.UTC)) {
		t.Errorf("PerfTime100nSec is %v", got)
	}

	put := func(off int, v uint32) []byte {
		b := append([]byte(nil), raw[:104]...)
		le.PutUint32(b[off:], v)
		return b
	}
	for _, tt := range []struct {
		name    string
		b       []byte
		off     int
		field   string
		more    bool  // wraps ErrMoreData
		need    int64 // Value of a more-data error
		wantErr bool
	}{
		{"empty", nil, 0, "", true, 88, true},
		{"87 bytes", raw[:87], 0, "", true, 88, true},
		{"name cut", raw[:100], 80, "", true, 104, true},
		{"signature", put(0, 0), 0, "Signature", false, 0, true},
		{"big endian", put(8, 0), 8, "LittleEndian", false, 0, true},
		{"version", put(12, 2), 12, "Version", false, 0, true},
		{"total under 88", put(20, 87), 20, "TotalByteLength", false, 0, true},
		{"header under 88", put(24, 80), 24, "HeaderLength", false, 0, true},
		{"header past total", put(24, 1088), 24, "HeaderLength", false, 0, true},
		{"name odd", put(80, 15), 80, "SystemNameLength", false, 0, true},
		{"name in header", put(84, 80), 84, "SystemNameOffset", false, 0, true},
		{"name past header length", put(80, 24), 80, "SystemNameLength", false, 0, true},
		// total past the bytes given is fine: only the header is read
		{"objects absent", put(20, 1<<30), 0, "", false, 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseHeader(tt.b)
			if !tt.wantErr {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var fe *FormatError
			if !errors.As(err, &fe) || fe.Offset != tt.off || fe.Field != tt.field || errors.Is(err, ErrMoreData) != tt.more {
				t.Fatalf("err %v (%+v), want offset %d field %q more-data %v", err, fe, tt.off, tt.field, tt.more)
			}
			if tt.more && fe.Value != tt.need {
				t.Errorf("more data: Value %d, want %d", fe.Value, tt.need)
			}
		})
	}
}
