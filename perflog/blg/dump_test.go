package blg

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	goldenfile "github.com/perfcounters/perfcounters/internal/golden"
)

// TestDump lists each Windows log (golden files), and checks the listing
// against what is known of the logs independently of the reader: the CSV
// Windows wrote from CounterSamples (10 columns: 5 listed values and the 5
// instances of network interface(*)), SampleLog's 8 wildcard objects, and
// the 5 erroneous samples PowerShell's Import-Counter reports for
// BadCounterSamples (FORMAT.md section 5: samples 83, 84, 152, 227, 228,
// with 23, 2, 1, 23 and 3 of its 26 machines not answering).
func TestDump(t *testing.T) {
	for _, tc := range []struct {
		name    string
		samples int
		every   string      // what every sample line says, when they agree
		failed  map[int]int // sample -> values marked failed
		header  []string    // lines the listing holds
	}{
		{name: "CounterSamples", samples: 25, every: "5 listed values, 1 instance list of 5 instances",
			header: []string{"time zone Pacific Standard Time (bias 480 minutes)", "counter list, 6 entries:"}},
		{name: "SampleLog", samples: 11, every: "8 raw blocks (LogicalDisk, TCPv4, Memory, Network Interface, PhysicalDisk, Process, Processor, System)",
			header: []string{"counter list, 8 entries:", `title table of \\ZACH-PC`}},
		{name: "BadCounterSamples", samples: 275, failed: map[int]int{83: 23, 84: 2, 152: 1, 227: 23, 228: 3},
			header: []string{"counter list, 26 entries:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sb strings.Builder
			if err := Dump(&sb, filepath.Join("testdata", tc.name+".blg")); err != nil {
				t.Fatal(err)
			}
			out := sb.String()
			goldenfile.Check(t, filepath.Join("testdata", "dump-"+tc.name+".golden"), out)
			for _, h := range tc.header {
				if !strings.Contains(out, h) {
					t.Errorf("the listing lacks %q", h)
				}
			}
			line := regexp.MustCompile(`(?m)^ +\d+  sample +\d+ +\d+  \S+ \S+  sample (\d+): (.*)$`)
			got := line.FindAllStringSubmatch(out, -1)
			if len(got) != tc.samples {
				t.Fatalf("%d sample lines, want %d", len(got), tc.samples)
			}
			failed := 0
			for i, m := range got {
				if m[1] != fmt.Sprint(i+1) {
					t.Errorf("sample line %d is numbered %s", i+1, m[1])
				}
				what, problems, _ := strings.Cut(m[2], "; ")
				if tc.every != "" && what != tc.every {
					t.Errorf("sample %d: %q, want %q", i+1, what, tc.every)
				}
				if n := tc.failed[i+1]; n > 0 {
					failed++
					if want := fmt.Sprintf("%d value", n); !strings.HasPrefix(problems, want) {
						t.Errorf("sample %d: %q, want %s(s) marked failed", i+1, problems, want)
					}
				} else if problems != "" {
					t.Errorf("sample %d: %q, want no failed values", i+1, problems)
				}
			}
			if want := fmt.Sprintf("\n%d samples, %d with values marked failed, 0 unreadable\n", tc.samples, failed); !strings.Contains(out, want) {
				t.Errorf("the listing lacks the summary %q", want)
			}
		})
	}
}

// TestDumpRefused: a file that is not a BLG is refused with the reader's
// reason, and IsLog tells BLGs from other files by their first bytes.
func TestDumpRefused(t *testing.T) {
	corrupt := filepath.Join("testdata", "CorruptBlg.blg")
	var sb strings.Builder
	err := Dump(&sb, corrupt)
	if err == nil || !strings.Contains(err.Error(), "not a Windows binary performance log") {
		t.Errorf("Dump(CorruptBlg.blg) = %v, want the reader's refusal", err)
	}
	if sb.Len() != 0 {
		t.Errorf("a refused log printed %q", sb.String())
	}
	for _, tc := range []struct {
		file string
		want bool
	}{{"CounterSamples.blg", true}, {"SampleLog.blg", true}, {"CorruptBlg.blg", false}, {"CounterSamples.csv", false}, {"absent.blg", false}} {
		if got := IsLog(filepath.Join("testdata", tc.file)); got != tc.want {
			t.Errorf("IsLog(%s) = %v, want %v", tc.file, got, tc.want)
		}
	}
	// Raw PERF_DATA_BLOCK files are not logs: "PERF" in UTF-16 read as a
	// buffer size is a plausible one (0x00450050), which once let a block
	// pass for a BLG.
	blocks, _ := filepath.Glob(filepath.Join("..", "..", "perfdata", "testdata", "windows", "*", "*.bin"))
	if len(blocks) < 50 {
		t.Fatalf("%d Windows block files found", len(blocks))
	}
	b, err := os.ReadFile(blocks[0])
	if err != nil {
		t.Fatal(err)
	}
	b[bufferHeaderSize+3] = 0xC0 // in PerfTime100nSec: what let a block of ours pass
	marked := filepath.Join(t.TempDir(), "marked.bin")
	if err := os.WriteFile(marked, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, b := range append(blocks, marked) {
		if IsLog(b) {
			t.Errorf("IsLog(%s): a PERF_DATA_BLOCK taken for a BLG", b)
		}
	}
}
