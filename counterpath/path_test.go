package counterpath

import (
	"fmt"
	"math"
	"strings"
	"testing"
)

func TestParseValid(t *testing.T) {
	tests := []struct {
		in        string
		want      Path
		canonical string // "" when in is already canonical
	}{
		{`\Processor(_Total)\% Processor Time`, Path{Object: "Processor", Instance: "_Total", Counter: "% Processor Time"}, ""},
		{`\\db7\Memory\Available Bytes`, Path{Machine: "db7", Object: "Memory", Counter: "Available Bytes"}, ""},
		{`\Thread(chrome/3#1)\% Processor Time`, Path{Object: "Thread", Parent: "chrome", Instance: "3", Index: 1, HasIndex: true, Counter: "% Processor Time"}, ""},
		{`\Process(svchost#12)\Working Set`, Path{Object: "Process", Instance: "svchost", Index: 12, HasIndex: true, Counter: "Working Set"}, ""},
		{`\Process(svchost#0)\Working Set`, Path{Object: "Process", Instance: "svchost", HasIndex: true, Counter: "Working Set"}, ""},
		{`\LogicalDisk(C:)\% Free Space`, Path{Object: "LogicalDisk", Instance: "C:", Counter: "% Free Space"}, ""},
		{`\Network Interface(Intel[R] PRO_1000)\Bytes Total/sec`, Path{Object: "Network Interface", Instance: "Intel[R] PRO_1000", Counter: "Bytes Total/sec"}, ""},
		{`\Process(*)\*`, Path{Object: "Process", Instance: "*", Counter: "*"}, ""},
		{`\Processor(*)\% Processor Time`, Path{Object: "Processor", Instance: "*", Counter: "% Processor Time"}, ""},
		{`\LogicalDisk(*/*#*)\*`, Path{Object: "LogicalDisk", Parent: "*", Instance: "*", Index: AnyIndex, HasIndex: true, Counter: "*"}, ""},
		{`\Process(svc*)\ID Process`, Path{Object: "Process", Instance: "svc*", Counter: "ID Process"}, ""},
		{`\System\System Up Time`, Path{Object: "System", Counter: "System Up Time"}, ""},
		{`\\192.168.0.7\TCPv4\Segments/sec`, Path{Machine: "192.168.0.7", Object: "TCPv4", Counter: "Segments/sec"}, ""},
		{`\PhysicalDisk(0 C: D:)\Avg. Disk sec/Read`, Path{Object: "PhysicalDisk", Instance: "0 C: D:", Counter: "Avg. Disk sec/Read"}, ""},
		// Linux names with syntax characters, escaped.
		{`\Process(kworker%2F0:1)\% Processor Time`, Path{Object: "Process", Instance: "kworker/0:1", Counter: "% Processor Time"}, ""},
		{`\Process(%28sd-pam%29)\Working Set`, Path{Object: "Process", Instance: "(sd-pam)", Counter: "Working Set"}, ""},
		{`\Process(C%23#2)\Working Set`, Path{Object: "Process", Instance: "C#", Index: 2, HasIndex: true, Counter: "Working Set"}, ""},
		{`\Process(100%25)\X`, Path{Object: "Process", Instance: "100%", Counter: "X"}, ""},
		{`\Thread(a%2Fb/c%5Cd#3)\X`, Path{Object: "Thread", Parent: "a/b", Instance: `c\d`, Index: 3, HasIndex: true, Counter: "X"}, ""},
		{`\TCPIP Performance Diagnostics %28Per-CPU%29\TCP current connections`, Path{Object: "TCPIP Performance Diagnostics (Per-CPU)", Counter: "TCP current connections"}, ""},
		{`\Proc%C3%A9ss(x)\y`, Path{Object: "Procéss", Instance: "x", Counter: "y"}, `\Procéss(x)\y`},
		// Mount points as a Linux administrator types them: an instance
		// without a parent that starts with '/' keeps its slashes.
		{`\LogicalDisk(/home)\% Free Space`, Path{Object: "LogicalDisk", Instance: "/home", Counter: "% Free Space"}, ""},
		{`\LogicalDisk(/)\Free Megabytes`, Path{Object: "LogicalDisk", Instance: "/", Counter: "Free Megabytes"}, ""},
		{`\LogicalDisk(/var/lib/docker#1)\X`, Path{Object: "LogicalDisk", Instance: "/var/lib/docker", Index: 1, HasIndex: true, Counter: "X"}, ""},
		{`\LogicalDisk(/mnt/a%23b%28c%29)\X`, Path{Object: "LogicalDisk", Instance: "/mnt/a#b(c)", Counter: "X"}, ""},
		{`\LogicalDisk(%2Fhome)\X`, Path{Object: "LogicalDisk", Instance: "/home", Counter: "X"}, `\LogicalDisk(/home)\X`},
		{`\LogicalDisk(/mnt%2Fx)\X`, Path{Object: "LogicalDisk", Instance: "/mnt/x", Counter: "X"}, `\LogicalDisk(/mnt/x)\X`},
		{`\Thread(p/%2Fx)\X`, Path{Object: "Thread", Parent: "p", Instance: "/x", Counter: "X"}, ""},
		// Not canonical: lower-case or needless escapes, leading zeros.
		{`\Process(kworker%2f0:1)\X`, Path{Object: "Process", Instance: "kworker/0:1", Counter: "X"}, `\Process(kworker%2F0:1)\X`},
		{`\Process(%41bc)\X`, Path{Object: "Process", Instance: "Abc", Counter: "X"}, `\Process(Abc)\X`},
		{`\Process(svchost#007)\X`, Path{Object: "Process", Instance: "svchost", Index: 7, HasIndex: true, Counter: "X"}, `\Process(svchost#7)\X`},
		// The counter is verbatim, even with syntax characters in it.
		{`\Obj(i)\a\b(c)#d`, Path{Object: "Obj", Instance: "i", Counter: `a\b(c)#d`}, ""},
		{`\Obj\%41`, Path{Object: "Obj", Counter: "%41"}, ""},
		{`\Obj(i#2147483647)\c`, Path{Object: "Obj", Instance: "i", Index: math.MaxInt32, HasIndex: true, Counter: "c"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if got != tt.want {
				t.Fatalf("Parse = %#v\nwant    %#v", got, tt.want)
			}
			canon := tt.canonical
			if canon == "" {
				canon = tt.in
			}
			if s := got.String(); s != canon {
				t.Errorf("String = %q, want %q", s, canon)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{`\Processor(_Total\% Processor Time`, `counterpath: "\Processor(_Total\% Processor Time": missing ')' after instance at byte 11`},
		{`\Processor(_Total`, `counterpath: "\Processor(_Total": missing ')' after instance at byte 11`},
		{``, `counterpath: "": empty path at byte 0`},
		{`Processor\x`, `counterpath: "Processor\x": path must start with '\' or '\\computer' at byte 0`},
		{`\Memory`, `counterpath: "\Memory": missing '\' before counter name at byte 7`},
		{`\Memory\`, `counterpath: "\Memory\": empty counter name at byte 8`},
		{`\\`, `counterpath: "\\": missing '\' after computer name at byte 2`},
		{`\\db7`, `counterpath: "\\db7": missing '\' after computer name at byte 5`},
		{`\\\Memory\x`, `counterpath: "\\\Memory\x": empty computer name at byte 2`},
		{`\\db7\\x`, `counterpath: "\\db7\\x": empty object name at byte 6`},
		{`\(x)\y`, `counterpath: "\(x)\y": empty object name at byte 1`},
		{`\Proc)ess\y`, `counterpath: "\Proc)ess\y": unexpected ')' in object name (write %29) at byte 5`},
		{`\Process()\x`, `counterpath: "\Process()\x": empty instance name at byte 9`},
		{`\Process(#1)\x`, `counterpath: "\Process(#1)\x": empty instance name at byte 9`},
		{`\LogicalDisk(/mnt/(x))\y`, `counterpath: "\LogicalDisk(/mnt/(x))\y": unescaped '(' in instance name (write %28) at byte 18`},
		{`\Thread(chrome/)\x`, `counterpath: "\Thread(chrome/)\x": empty instance name at byte 15`},
		{`\Process(kworker/0:1/x)\y`, `counterpath: "\Process(kworker/0:1/x)\y": unescaped '/' (write %2F) in instance name at byte 20`},
		{`\Process((sd-pam))\x`, `counterpath: "\Process((sd-pam))\x": unescaped '(' in instance name (write %28) at byte 9`},
		{`\Process(a)b\x`, `counterpath: "\Process(a)b\x": missing '\' before counter name after ')' at byte 11`},
		{`\Process(a)`, `counterpath: "\Process(a)": missing '\' before counter name after ')' at byte 11`},
		{`\Process(svchost#)\x`, `counterpath: "\Process(svchost#)\x": '#' not followed by an instance index (write %23 for a '#' in a name) at byte 16`},
		{`\Process(C#sharp)\x`, `counterpath: "\Process(C#sharp)\x": '#' not followed by an instance index (write %23 for a '#' in a name) at byte 10`},
		{`\Process(a#b#1)\x`, `counterpath: "\Process(a#b#1)\x": unescaped '#' (write %23) in instance name at byte 10`},
		{`\Process(a#-1)\x`, `counterpath: "\Process(a#-1)\x": '#' not followed by an instance index (write %23 for a '#' in a name) at byte 10`},
		{`\Process(a#2147483648)\x`, `counterpath: "\Process(a#2147483648)\x": instance index 2147483648 out of range at byte 10`},
		{`\Process(100%)\x`, `counterpath: "\Process(100%)\x": '%' not followed by two hex digits in instance name at byte 12`},
		{`\Process(a%G0)\x`, `counterpath: "\Process(a%G0)\x": '%' not followed by two hex digits in instance name at byte 10`},
		{`\Obj%2\x`, `counterpath: "\Obj%2\x": '%' not followed by two hex digits in object name at byte 4`},
		{`\Thread(a#1/b)\x`, `counterpath: "\Thread(a#1/b)\x": unescaped '#' (write %23) in parent instance name at byte 9`},
		{"\\Obj(a\x00)x", `counterpath: "\\Obj(a\x00)x": missing '\' before counter name after ')' at byte 8`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			p, err := Parse(tt.in)
			if err == nil {
				t.Fatalf("Parse = %#v, want error", p)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestStringEscapes(t *testing.T) {
	tests := []struct {
		p    Path
		want string
	}{
		{Path{Object: "Process", Instance: "kworker/0:1", Counter: "% Processor Time"}, `\Process(kworker%2F0:1)\% Processor Time`},
		{Path{Object: "Process", Instance: "(sd-pam)", Counter: "x"}, `\Process(%28sd-pam%29)\x`},
		{Path{Object: "Process", Instance: "svchost#3", Counter: "x"}, `\Process(svchost%233)\x`},
		{Path{Object: "Process", Instance: "svchost", Index: 3, HasIndex: true, Counter: "x"}, `\Process(svchost#3)\x`},
		{Path{Object: "Process", Instance: `a\b`, Counter: "x"}, `\Process(a%5Cb)\x`},
		{Path{Object: "Process", Instance: "50%", Counter: "x"}, `\Process(50%25)\x`},
		{Path{Object: "Process", Instance: "tab\there", Counter: "x"}, `\Process(tab%09here)\x`},
		{Path{Object: "Process", Instance: "bad\xffbyte", Counter: "x"}, `\Process(bad%FFbyte)\x`},
		{Path{Object: "Process", Instance: "日本語", Counter: "x"}, `\Process(日本語)\x`},
		{Path{Machine: `a\b`, Object: "o(1)", Counter: "c"}, `\\a%5Cb\o%281%29\c`},
		{Path{Object: "Thread", Parent: "a/b", Instance: "*", Index: AnyIndex, HasIndex: true, Counter: "*"}, `\Thread(a%2Fb/*#*)\*`},
		{Path{Object: "Obj/#", Counter: "c"}, `\Obj/#\c`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			if got := tt.p.String(); got != tt.want {
				t.Fatalf("String = %q, want %q", got, tt.want)
			}
			back, err := Parse(tt.want)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if back != tt.p {
				t.Errorf("Parse(String) = %#v, want %#v", back, tt.p)
			}
		})
	}
}

func TestEscapeInstance(t *testing.T) {
	tests := []struct{ name, esc string }{
		{"", ""},
		{"_Total", "_Total"},
		{"Intel[R] PRO_1000", "Intel[R] PRO_1000"},
		{"kworker/0:1", "kworker%2F0:1"},
		{"(sd-pam)", "%28sd-pam%29"},
		{"a#1", "a%231"},
		{`\`, "%5C"},
		{"%", "%25"},
		{"*", "*"},
		{"\x7f\x01", "%7F%01"},
		{"c1 \u009b31m", "c1 %C2%9B31m"},
		{"rtl \u202eexe.txt", "rtl %E2%80%AEexe.txt"},
		{"line\u2028sep", "line%E2%80%A8sep"},
		{"日本語 é", "日本語 é"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := EscapeInstance(tt.name); got != tt.esc {
				t.Errorf("EscapeInstance = %q, want %q", got, tt.esc)
			}
			back, err := UnescapeInstance(tt.esc)
			if err != nil || back != tt.name {
				t.Errorf("UnescapeInstance(%q) = %q, %v", tt.esc, back, err)
			}
		})
	}
	for _, bad := range []string{"a/b", "a#b", "(", ")", `\`, "%", "%4", "%zz"} {
		if got, err := UnescapeInstance(bad); err == nil {
			t.Errorf("UnescapeInstance(%q) = %q, want error", bad, got)
		}
	}
}

func TestParseIndexSuffix(t *testing.T) {
	tests := []struct {
		in       string
		name     string
		index    int
		hasIndex bool
		err      bool
	}{
		{"svchost#3", "svchost", 3, true, false},
		{"svchost", "svchost", 0, false, false},
		{"svchost#0", "svchost", 0, true, false},
		{"svchost#*", "svchost", AnyIndex, true, false},
		{"C%23#2", "C#", 2, true, false},
		{"C%23", "C#", 0, false, false},
		{"C#sharp", "", 0, false, true},
		{"#3", "", 0, false, true},
		{"a#", "", 0, false, true},
		{"a#99999999999", "", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			name, index, has, err := ParseIndexSuffix(tt.in)
			if (err != nil) != tt.err {
				t.Fatalf("err = %v, want error %v", err, tt.err)
			}
			if name != tt.name || index != tt.index || has != tt.hasIndex {
				t.Errorf("= %q, %d, %v; want %q, %d, %v", name, index, has, tt.name, tt.index, tt.hasIndex)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		p    Path
		want string
	}{
		{Path{Object: "o", Counter: "c"}, ""},
		{Path{Counter: "c"}, "counterpath: empty object name"},
		{Path{Object: "o"}, "counterpath: empty counter name"},
		{Path{Object: "o", Parent: "p", Counter: "c"}, `counterpath: parent instance "p" without an instance`},
		{Path{Object: "o", HasIndex: true, Counter: "c"}, "counterpath: instance index without an instance"},
		{Path{Object: "o", Instance: "i", Index: 4, Counter: "c"}, "counterpath: Index 4 set without HasIndex"},
		{Path{Object: "o", Instance: "i", Index: -2, HasIndex: true, Counter: "c"}, "counterpath: instance index -2 out of range"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			err := tt.p.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate = %q, want %q", got, tt.want)
			}
		})
	}
}

func mustParse(t *testing.T, s string) Path {
	t.Helper()
	p, err := Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{`\Process(*)\*`, `\Process(svchost#2)\Working Set`, true},
		{`\Process(*)\*`, `\Process(svchost)\Working Set`, true},
		{`\Process(*)\*`, `\Memory\Available Bytes`, false},
		{`\process(SVCHOST)\working set`, `\Process(svchost)\Working Set`, true},
		{`\Process(svchost)\Working Set`, `\Process(svchost#0)\Working Set`, true},
		{`\Process(svchost)\Working Set`, `\Process(svchost#1)\Working Set`, false},
		{`\Process(svchost#0)\Working Set`, `\Process(svchost)\Working Set`, true},
		{`\Process(svchost#1)\Working Set`, `\Process(svchost#1)\Working Set`, true},
		{`\Process(svchost#*)\Working Set`, `\Process(svchost#5)\Working Set`, true},
		{`\Process(svc*)\Working Set`, `\Process(SvcHost#5)\Working Set`, true},
		{`\Process(svc*)\Working Set`, `\Process(chrome)\Working Set`, false},
		{`\Process(*host)\Working Set`, `\Process(svchost)\Working Set`, true},
		{`\Process(s*c*t)\Working Set`, `\Process(svchost)\Working Set`, true},
		{`\Process(s*c*x)\Working Set`, `\Process(svchost)\Working Set`, false},
		{`\Processor(*)\% Processor Time`, `\Processor(_Total)\% Processor Time`, true},
		{`\Processor(*)\% Processor Time`, `\Processor(_Total)\% User Time`, false},
		{`\Processor(*)\% * Time`, `\Processor(0)\% User Time`, true},
		{`\Memory\*`, `\Memory\Available Bytes`, true},
		{`\Memory\*`, `\Memory(x)\Available Bytes`, false},
		{`\Memory(*)\*`, `\Memory\Available Bytes`, false},
		{`\Thread(*)\% Processor Time`, `\Thread(chrome/3#1)\% Processor Time`, true},
		{`\Thread(*/*#*)\% Processor Time`, `\Thread(chrome/3#1)\% Processor Time`, true},
		{`\Thread(chrome/*)\% Processor Time`, `\Thread(chrome/3#1)\% Processor Time`, true},
		{`\Thread(firefox/*)\% Processor Time`, `\Thread(chrome/3#1)\% Processor Time`, false},
		{`\Thread(3)\% Processor Time`, `\Thread(chrome/3)\% Processor Time`, false},
		{`\Thread(chrome/3)\% Processor Time`, `\Thread(chrome/3)\% Processor Time`, true},
		{`\Memory\Available Bytes`, `\\db7\Memory\Available Bytes`, true},
		{`\\DB7\Memory\Available Bytes`, `\\db7\Memory\Available Bytes`, true},
		{`\\db8\Memory\Available Bytes`, `\\db7\Memory\Available Bytes`, false},
		{`\\db7\Memory\Available Bytes`, `\Memory\Available Bytes`, false},
		{`\Proc*\x`, `\Process\x`, false},                    // no object wildcard
		{`\Process(straße)\x`, `\Process(STRASSE)\x`, false}, // simple folding only
		{`\Process(ΣΑΣ)\x`, `\Process(σας)\x`, true},
		{`\Process(%FF*)\x`, `\Process(%EF%BF%BDa)\x`, false}, // invalid byte is not U+FFFD
	}
	for _, tt := range tests {
		t.Run(tt.pattern+" ~ "+tt.path, func(t *testing.T) {
			if got := Match(mustParse(t, tt.pattern), mustParse(t, tt.path)); got != tt.want {
				t.Errorf("Match = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHasWildcard(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{`\Process(*)\*`, true},
		{`\Process(svc*)\x`, true},
		{`\Process(a#*)\x`, true},
		{`\Thread(*/1)\x`, true},
		{`\Memory\*`, true},
		{`\Memory\Available Bytes`, false},
		{`\Proc*\x`, false},
		{`\Process(svchost#3)\x`, false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := mustParse(t, tt.path).HasWildcard(); got != tt.want {
				t.Errorf("HasWildcard = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestGlobLong(t *testing.T) {
	// Many stars against a long non-matching name must finish quickly
	// (no exponential backtracking).
	pattern := strings.Repeat("a*", 50) + "b"
	name := strings.Repeat("a", 5000)
	if Glob(pattern, name) {
		t.Fatal("matched")
	}
	if !Glob(pattern, name+"b") {
		t.Fatal("did not match")
	}
}

func ExampleParse() {
	p, err := Parse(`\Thread(chrome/3#1)\% Processor Time`)
	if err != nil {
		panic(err)
	}
	fmt.Printf("object=%s parent=%s instance=%s index=%d counter=%s\n", p.Object, p.Parent, p.Instance, p.Index, p.Counter)
	p.Instance = "kworker/0:1"
	p.Parent = ""
	p.HasIndex, p.Index = false, 0
	fmt.Println(p)
	_, err = Parse(`\Processor(_Total\% Processor Time`)
	fmt.Println(err)
	// Output:
	// object=Thread parent=chrome instance=3 index=1 counter=% Processor Time
	// \Thread(kworker%2F0:1)\% Processor Time
	// counterpath: "\Processor(_Total\% Processor Time": missing ')' after instance at byte 11
}

func ExampleMatch() {
	pattern, _ := Parse(`\Process(svc*)\Working Set`)
	for _, s := range []string{`\Process(svchost#1)\Working Set`, `\process(SVCHOST)\working set`, `\Process(chrome)\Working Set`} {
		p, _ := Parse(s)
		fmt.Println(s, Match(pattern, p))
	}
	// Output:
	// \Process(svchost#1)\Working Set true
	// \process(SVCHOST)\working set true
	// \Process(chrome)\Working Set false
}

func BenchmarkParse(b *testing.B) {
	const s = `\\db7\Thread(chrome/3#1)\% Processor Time`
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if _, err := Parse(s); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkString(b *testing.B) {
	p := Path{Machine: "db7", Object: "Thread", Parent: "chrome", Instance: "3", Index: 1, HasIndex: true, Counter: "% Processor Time"}
	b.ReportAllocs()
	for b.Loop() {
		_ = p.String()
	}
}

// TestNeedsEscapeShortcut checks needsEscape's shortcut for letters,
// digits and spaces against the rule it stands for, for every byte and
// every set of specials.
func TestNeedsEscapeShortcut(t *testing.T) {
	for _, specials := range []string{machineSpecials, objectSpecials, instanceSpecials, mountSpecials} {
		for c := 0; c < 256; c++ {
			b := byte(c)
			want := b < 0x20 || b == 0x7f || b == '%' || strings.IndexByte(specials, b) >= 0
			if got := needsEscape(b, specials); got != want {
				t.Errorf("needsEscape(%q, %q) = %v, want %v", b, specials, got, want)
			}
		}
	}
}

// TestParseWindows: paths as Windows writes them in log headers, with
// parentheses in instance names, read as the names Windows meant; paths
// Parse reads are read alike; the rest fail with Parse's error.
func TestParseWindows(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Path
		err  bool
	}{
		{in: `\\m\Process(setup(2))\ID Process`, want: Path{Machine: "m", Object: "Process", Instance: "setup(2)", Counter: "ID Process"}},
		{in: `\Process(a(b)#1)\% Processor Time`, want: Path{Object: "Process", Instance: "a(b)", Index: 1, HasIndex: true, Counter: "% Processor Time"}},
		{in: `\Thread(x(1)/3)\Context Switches/sec`, want: Path{Object: "Thread", Parent: "x(1)", Instance: "3", Counter: "Context Switches/sec"}},
		{in: `\Process((sd-pam))\x`, want: Path{Object: "Process", Instance: "(sd-pam)", Counter: "x"}},
		{in: `\Process(50%(x))\x`, want: Path{Object: "Process", Instance: "50%(x)", Counter: "x"}},
		{in: `\\m\Processor(_Total)\% Processor Time`, want: Path{Machine: "m", Object: "Processor", Instance: "_Total", Counter: "% Processor Time"}},
		{in: `\Process(a%28b%29)\x`, want: Path{Object: "Process", Instance: "a(b)", Counter: "x"}},
		{in: `\Memory\Available Bytes`, want: Path{Object: "Memory", Counter: "Available Bytes"}},
		{in: `\Process(a(b)\x`, want: Path{Object: "Process", Instance: "a(b", Counter: "x"}},
		{in: `\Process(a))\x`, want: Path{Object: "Process", Instance: "a)", Counter: "x"}},
		{in: `\(x)\y`, err: true},
		{in: `\Process(a(b))`, err: true},
		{in: `\\m`, err: true},
		{in: ``, err: true},
	} {
		got, err := ParseWindows(tc.in)
		if tc.err {
			if err == nil {
				t.Errorf("ParseWindows(%q) = %+v, want an error", tc.in, got)
			} else if _, perr := Parse(tc.in); perr == nil || perr.Error() != err.Error() {
				t.Errorf("ParseWindows(%q): error %v, want Parse's: %v", tc.in, err, perr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseWindows(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}
