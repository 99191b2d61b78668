package procscan

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"
)

func TestParseStat(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		comm    string
		want    Stat
		wantErr bool
	}{
		{"real kthread", "9 (kworker/0:0-mm_percpu_wq) I 2 0 0 0 -1 69238880 0 0 0 0 0 0 0 0 20 0 1 0 17 0 0 18446744073709551615 0 0",
			"kworker/0:0-mm_percpu_wq", Stat{State: 'I', PPID: 2, Priority: 20, NumThreads: 1, StartTime: 17}, false},
		{"paren comm", "100 ((sd-pam)) S 1 100 100 0 -1 4194624 10 0 2 0 7 3 0 0 20 0 1 0 5000 1048576 10 1",
			"(sd-pam)", Stat{State: 'S', PPID: 1, MinFlt: 10, MajFlt: 2, UTime: 7, STime: 3, Priority: 20, NumThreads: 1, StartTime: 5000, VSize: 1048576, RSS: 10}, false},
		{"comm with ) and spaces", "7 (a b) c) R 1 0 0 0 -1 0 1 0 1 0 2 3 0 0 -51 0 4 0 99 4096 -1",
			"a b) c", Stat{State: 'R', PPID: 1, MinFlt: 1, MajFlt: 1, UTime: 2, STime: 3, Priority: -51, NumThreads: 4, StartTime: 99, VSize: 4096, RSS: -1}, false},
		{"empty comm", "5 () S 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 -20 1 0 1",
			"", Stat{State: 'S', PPID: 1, Priority: 20, Nice: -20, NumThreads: 1, StartTime: 1}, false},
		{"truncated before starttime", "5 (x) S 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0", "", Stat{}, true},
		{"no parens", "5 x S 1", "", Stat{}, true},
		{"no state", "5 (x)", "", Stat{}, true},
		{"empty", "", "", Stat{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var st Stat
			comm, err := parseStat([]byte(tc.in), &st)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if string(comm) != tc.comm || st != tc.want {
				t.Errorf("got %q %+v\nwant %q %+v", comm, st, tc.comm, tc.want)
			}
		})
	}
}

// kib is a kernel "kB" in bytes.
const kib = 1024

func TestParseStatusIO(t *testing.T) {
	var m Mem
	parseStatus([]byte("Name:\tVmPeak: 5 kB\nVmPeak:\t 10 kB\nVmSize:\t9 kB\nVmHWM:\t8 kB\nVmRSS:\t7 kB\nRssAnon:\t6 kB\nRssFile:\t1 kB\nVmData:\t5 kB\nVmStk:\t4 kB\nVmSwap:\t3 kB\nVmBad:"), &m)
	want := Mem{VMPeak: 10 * kib, VMSize: 9 * kib, VMHWM: 8 * kib, VMRSS: 7 * kib, RSSAnon: 6 * kib, VMData: 5 * kib, VMStk: 4 * kib, VMSwap: 3 * kib}
	if m != want {
		t.Errorf("status: got %+v, want %+v", m, want)
	}
	var io IO
	parseIO([]byte("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\nbogus\n"), &io)
	if io != (IO{1, 2, 3, 4}) {
		t.Errorf("io: got %+v", io)
	}
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{{"1 2 3\n", 3, true}, {"223292738 386560779 1652", 1652, true}, {"1 2", 0, false}, {"", 0, false}} {
		if got, ok := parseSchedstat([]byte(tc.in)); got != tc.want || ok != tc.ok {
			t.Errorf("schedstat %q = %d %v, want %d %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	var ci cpuIdle
	err := parseProcStatIdle([]byte("cpu  1 2 3 4 5\ncpu0 1 1 1 10 1 0\ncpu1 0 0 0 20\nintr 1\nbtime 42\n"), &ci)
	if err != nil || ci.total != 11+20 || len(ci.perCPU) != 2 || ci.perCPU[0] != 11 {
		t.Errorf("got %+v %v", ci, err)
	}
	if err := parseProcStatIdle([]byte("cpu  1 2 3 4\nbtime 42\n"), &ci); err == nil {
		t.Error("no cpuN line: want error")
	}
	if err := parseProcStatIdle([]byte("cpu0 1 2\nbtime 1\n"), &ci); err == nil {
		t.Error("short cpu line: want error")
	}
}

// dirent64 encodes one linux_dirent64 record.
func dirent64(name string) []byte {
	n := 19 + len(name) + 1
	n = (n + 7) &^ 7
	b := make([]byte, n)
	binary.LittleEndian.PutUint16(b[16:], uint16(n))
	copy(b[19:], name)
	return b
}

func TestDirents(t *testing.T) {
	var buf []byte
	for _, n := range []string{".", "..", "1", "self", "0", "01", "4194304", "2147483648", "12a", "77"} {
		buf = append(buf, dirent64(n)...)
	}
	got := appendDirentPIDs(nil, buf)
	if want := []int32{1, 4194304, 77}; len(got) != len(want) || got[0] != 1 || got[1] != 4194304 || got[2] != 77 {
		t.Errorf("pids = %v, want %v", got, want)
	}
	if n := countDirentNumbers(buf); n != 6 { // 1 0 01 4194304 2147483648 77, not . .. self 12a
		t.Errorf("countDirentNumbers = %d, want 6", n)
	}
	// A truncated record is ignored, not read past.
	if got := appendDirentPIDs(nil, buf[:len(buf)-3]); len(got) != 2 {
		t.Errorf("truncated buffer: %v", got)
	}
}

func TestOrderTIDs(t *testing.T) {
	tests := []struct {
		pid  int32
		in   []int32
		want string
	}{
		{10, []int32{12, 10, 11}, "10,11,12"},
		{500, []int32{3, 500, 7}, "500,3,7"}, // pid wrapped: the main thread still comes first
		{9, []int32{5, 4}, "4,5"},            // main thread gone
	}
	for _, tc := range tests {
		orderTIDs(tc.pid, tc.in)
		var s []string
		for _, v := range tc.in {
			s = append(s, strconv.Itoa(int(v)))
		}
		if got := strings.Join(s, ","); got != tc.want {
			t.Errorf("orderTIDs(%d) = %s, want %s", tc.pid, got, tc.want)
		}
	}
}
