package pdhcsv

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// TestLenientHeader: the header cells Windows' tools write besides what
// RFC 4180 allows read as they were meant, each departure noted once.
func TestLenientHeader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		cols     []string
		desc     string
		zone     Zone
		note     string
	}{
		{"doubled", `"(PDH-CSV 4.0) (UTC)(0)","\\H\A(x""y)\c"`, []string{`\\H\A(x"y)\c`}, "", Zone{Name: "UTC"}, ""},
		{"not doubled", `"(PDH-CSV 4.0) (UTC)(0)","\\H\A(x"y)\c"`, []string{`\\H\A(x"y)\c`}, "", Zone{Name: "UTC"}, "not doubled"},
		{"description with quotes", `"(PDH-CSV 4.0) (UTC)(0)","\\H\A\c","say "hi""`, []string{`\\H\A\c`}, `say "hi"`, Zone{Name: "UTC"}, "not doubled"},
		{"description with quotes and a comma", `"(PDH-CSV 4.0) (UTC)(0)","\\H\A\c","say "hi", then go"`, []string{`\\H\A\c`}, `say "hi", then go`, Zone{Name: "UTC"}, "not doubled"},
		{"a doubled quote before a comma", `"(PDH-CSV 4.0) (UTC)(0)","\\H\A(x"",y)\c","\\H\A\d"`, []string{`\\H\A(x",y)\c`, `\\H\A\d`}, "", Zone{Name: "UTC"}, ""},
		{"unquoted", `(PDH-CSV 4.0) (UTC)(0),\\H\A\c,\\H\A\d`, []string{`\\H\A\c`, `\\H\A\d`}, "", Zone{Name: "UTC"}, "without quotes"},
		{"trailing separator", `"(PDH-CSV 4.0) (UTC)(0)","\\H\A\c",`, []string{`\\H\A\c`}, "", Zone{Name: "UTC"}, "ends with a separator"},
		{"zone cut", `"(PDH-CSV 4.0) (RTZ 2 (","\\H\A\c"`, []string{`\\H\A\c`}, "", ZoneUnknown(), "cannot be read"},
		{"zone name cut, bias kept", `"(PDH-CSV 4.0) (RTZ 2 ((-180)","\\H\A\c"`, []string{`\\H\A\c`}, "", Zone{Name: "RTZ 2 (", Bias: -180}, "bias it gives, -180"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var notes []string
			lg, err := parseHeader([]byte(tc.in), 1, "h.csv", &quirks{notes: &notes})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(lg.Columns, tc.cols) || lg.Description != tc.desc || lg.Zone != tc.zone {
				t.Errorf("columns %q, description %q, zone %+v", lg.Columns, lg.Description, lg.Zone)
			}
			found := tc.note == ""
			for _, n := range notes {
				found = found || bytes.Contains([]byte(n), []byte(tc.note))
			}
			if !found || tc.note == "" && len(notes) > 0 && tc.desc == "" {
				t.Errorf("notes %q, want one with %q", notes, tc.note)
			}
		})
	}
}

// FuzzParseHeader: the lenient header parse never panics, and a header
// it reads as counter paths (each column starting with '\'), written
// back as PDH writes a header (every cell quoted, quotes doubled), reads
// back the same: zone, columns and description.
func FuzzParseHeader(f *testing.F) {
	f.Add([]byte(`"(PDH-CSV 4.0) (Pacific Standard Time)(480)","\\H\Processor(_Total)\% Processor Time"`))
	f.Add([]byte(`"(PDH-CSV 4.0) (RTZ 2 (","\\ПК\Процессор(_Total)\% загруженности процессора"`))
	f.Add([]byte(`"(PDH-CSV 4.0) (UTC)(0)","\\H\A\c","say "hi", then go"`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.ContainsAny(line, "\n") {
			return
		}
		lg, err := parseHeader(line, 1, "f.csv", &quirks{})
		if err != nil || slices.ContainsFunc(lg.Columns, func(c string) bool { return !strings.HasPrefix(c, `\`) }) {
			return
		}
		var out bytes.Buffer
		w := NewWriter(&out, WriterOptions{Format: lg.Format, Style: lg.Style})
		cols := lg.Columns
		if lg.Description != "" {
			cols = append(slices.Clone(cols), lg.Description)
		}
		if err := w.WriteHeader(lg.Zone, cols); err != nil {
			t.Fatal(err)
		}
		back, err := parseHeader(bytes.TrimSuffix(out.Bytes(), []byte("\n")), 1, "f.csv", &quirks{})
		if err != nil {
			t.Fatalf("%q read as %+v, written as %q, which reads as: %v", line, lg, out.String(), err)
		}
		if back.Format != lg.Format || back.Style != lg.Style || back.Zone != lg.Zone || !slices.Equal(back.Columns, lg.Columns) || back.Description != lg.Description {
			t.Fatalf("%q read as %+v, written as %q, which reads as %+v", line, lg, out.String(), back)
		}
	})
}
