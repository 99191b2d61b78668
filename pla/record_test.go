package pla

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// TestAlive checks Proc.Alive on a fixture /proc: a record is alive only
// when its pid exists in the same boot with the same start time and is
// no zombie.
func TestAlive(t *testing.T) {
	root := t.TempDir()
	write := func(rel, s string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("sys/kernel/random/boot_id", "boot-1\n")
	// The command name holds blanks and a ')': the fields follow the last one.
	stat := func(state string, start int) string {
		s := "42 (perfc (x) y) " + state
		for i := 4; i <= 21; i++ {
			s += " 0"
		}
		return s + " " + strconv.Itoa(start) + " 0 0\n"
	}
	write("42/stat", stat("S", 777))
	write("43/stat", stat("Z", 888))
	write("44/stat", "44 (short) S 1 2\n")
	p := Proc{Root: root}
	for _, tc := range []struct {
		name string
		rec  *Record
		want bool
	}{
		{"same process", &Record{PID: 42, StartTicks: 777, BootID: "boot-1"}, true},
		{"pid reused", &Record{PID: 42, StartTicks: 776, BootID: "boot-1"}, false},
		{"other boot", &Record{PID: 42, StartTicks: 777, BootID: "boot-0"}, false},
		{"zombie", &Record{PID: 43, StartTicks: 888, BootID: "boot-1"}, false},
		{"gone", &Record{PID: 45, StartTicks: 1, BootID: "boot-1"}, false},
		{"damaged stat", &Record{PID: 44, StartTicks: 0, BootID: "boot-1"}, false},
		{"stopped cleanly", &Record{PID: 42, StartTicks: 777, BootID: "boot-1", Stopped: time.Unix(1, 0)}, false},
		{"no pid", &Record{BootID: "boot-1"}, false},
		{"no record", nil, false},
	} {
		if got := p.Alive(tc.rec); got != tc.want {
			t.Errorf("%s: Alive = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !p.Crashed(&Record{PID: 42, StartTicks: 1, BootID: "boot-1"}) {
		t.Error("a record of a process gone without a clean stop is not a crash")
	}
	if p.Crashed(&Record{PID: 42, StartTicks: 1, BootID: "boot-1", Stopped: time.Unix(1, 0)}) {
		t.Error("a clean stop is a crash")
	}
}
