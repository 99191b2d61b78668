package collectorset

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestParseThreshold(t *testing.T) {
	cases := []struct {
		in      string
		want    Threshold
		wantErr string
	}{
		{`\Processor(_Total)\% Processor Time>90`, Threshold{Path: `\Processor(_Total)\% Processor Time`, Above: true, Value: 90}, ""},
		{`\Memory\Available MBytes<512.5`, Threshold{Path: `\Memory\Available MBytes`, Value: 512.5}, ""},
		{`\Memory\Available MBytes < -1e3`, Threshold{Path: `\Memory\Available MBytes`, Value: -1000}, ""},
		{`\\web1\LogicalDisk(*)\% Free Space<10`, Threshold{Path: `\\web1\LogicalDisk(*)\% Free Space`, Value: 10}, ""},
		// The operator is the last one: an instance may hold '>'.
		{`\Process(a>b)\% Processor Time>5`, Threshold{Path: `\Process(a>b)\% Processor Time`, Above: true, Value: 5}, ""},
		{`\Memory\Available Bytes`, Threshold{}, "want COUNTER>VALUE"},
		{`\Memory\Available Bytes>`, Threshold{}, "is not a number"},
		{`\Memory\Available Bytes>NaN`, Threshold{}, "is not a number"},
		{`\Memory\Available Bytes>Inf`, Threshold{}, "is not a number"},
		{`\Memory\Available Bytes>1e999`, Threshold{}, "is not a number"},
		{`Memory>5`, Threshold{}, "threshold"},
	}
	for _, c := range cases {
		got, err := ParseThreshold(c.in)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseThreshold(%q) = %v, %v; want an error with %q", c.in, got, err, c.wantErr)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseThreshold(%q) = %+v, %v; want %+v", c.in, got, err, c.want)
		}
		if again, err := ParseThreshold(got.String()); err != nil || again != got {
			t.Errorf("ParseThreshold(%q.String() = %q) = %+v, %v", c.in, got.String(), again, err)
		}
	}
}

func TestThresholdPastBack(t *testing.T) {
	above := Threshold{Above: true, Value: 90}
	below := Threshold{Value: 10}
	cases := []struct {
		th         Threshold
		v, hyst    float64
		past, back bool
	}{
		{above, 90, 0, false, true},
		{above, 90.1, 0, true, false},
		{above, 89, 5, false, false}, // inside the hysteresis band
		{above, 85, 5, false, true},
		{below, 10, 0, false, true},
		{below, 9.9, 0, true, false},
		{below, 12, 5, false, false},
		{below, 15, 5, false, true},
	}
	for _, c := range cases {
		if got := c.th.Past(c.v); got != c.past {
			t.Errorf("%s%v Past(%v) = %v", c.th.Op(), c.th.Value, c.v, got)
		}
		if got := c.th.Back(c.v, c.hyst); got != c.back {
			t.Errorf("%s%v Back(%v, %v) = %v", c.th.Op(), c.th.Value, c.v, c.hyst, got)
		}
	}
}

func TestSubstitute(t *testing.T) {
	vars := map[string]string{"counter": `\A(x)\B`, "value": "95.000000", "name": "cpu", "usertext": "u {value}"}
	cases := []struct{ in, want string }{
		{"{name} {counter} {value}", `cpu \A(x)\B 95.000000`},
		{`\{name\}`, "cpu"},
		{"{NAME}", "cpu"},
		{"{unknown} {", "{unknown} {"},
		{"{usertext}", "u {value}"}, // substituted once: a value is never read again
		{"", ""},
	}
	for _, c := range cases {
		if got := Substitute(c.in, vars); got != c.want {
			t.Errorf("Substitute(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestSplitArgs(t *testing.T) {
	cases := []struct {
		in      string
		want    []string
		wantErr bool
	}{
		{`a b  c`, []string{"a", "b", "c"}, false},
		{`"a b" c`, []string{"a b", "c"}, false},
		{`x"y z"w`, []string{"xy zw"}, false},
		{`say \"hi\"`, []string{"say", `"hi"`}, false},
		{`""`, []string{""}, false},
		{`$(rm -rf /) ; | *`, []string{"$(rm", "-rf", "/)", ";", "|", "*"}, false},
		{``, nil, false},
		{`"open`, nil, true},
	}
	for _, c := range cases {
		got, err := SplitArgs(c.in)
		if (err != nil) != c.wantErr || !reflect.DeepEqual(got, c.want) {
			t.Errorf("SplitArgs(%q) = %q, %v; want %q (error %v)", c.in, got, err, c.want, c.wantErr)
		}
	}
}

// TestImportWindowsAlert reads an alert set as Windows exports it.
func TestImportWindowsAlert(t *testing.T) {
	b, err := os.ReadFile("testdata/windows-cpu_alert.xml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseXML(b, "windows-cpu_alert.xml")
	if err != nil {
		t.Fatal(err)
	}
	want := &Alerts{
		Name:                    "cpu_alert",
		Thresholds:              []string{`\Processor(_Total)\% Processor Time>90`, `\LogicalDisk(*)\% Free Space<10`},
		EventLog:                true,
		SampleInterval:          5,
		Task:                    "notify",
		TaskArguments:           `\{usertext\}`,
		TaskUserTextArguments:   "{name} {counter} {value} {threshold} {date}",
		TriggerDataCollectorSet: "cpu_log",
	}
	if !reflect.DeepEqual(s.Alert, want) {
		t.Errorf("alert\n%+v\nwant\n%+v", s.Alert, want)
	}
	if s.Type() != "Alert" || s.Interval() != 5 || s.Name != "cpu_alert" || s.UserAccount != "SYSTEM" {
		t.Errorf("set %q type %s interval %d user %q", s.Name, s.Type(), s.Interval(), s.UserAccount)
	}
	s.RootPath = ""
	if err := s.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestAlertValidate(t *testing.T) {
	ok := func() *Set {
		s := NewAlert("a")
		s.Alert.Thresholds = []string{`\Memory\Available Bytes<100`}
		return s
	}
	cases := []struct {
		name string
		edit func(s *Set)
		want string
	}{
		{"fine", func(*Set) {}, ""},
		{"no thresholds", func(s *Set) { s.Alert.Thresholds = nil }, "at least one threshold"},
		{"bad threshold", func(s *Set) { s.Alert.Thresholds = append(s.Alert.Thresholds, `\Memory\X`) }, "want COUNTER>VALUE"},
		{"interval", func(s *Set) { s.Alert.SampleInterval = 0 }, "sample interval"},
		{"negative hysteresis", func(s *Set) { s.Alert.Hysteresis = -1 }, "hysteresis"},
		{"arguments without task", func(s *Set) { s.Alert.TaskArguments = "x" }, "without a task"},
		{"triggers itself", func(s *Set) { s.Alert.TriggerDataCollectorSet = "A" }, "cannot start itself"},
		{"trigger name", func(s *Set) { s.Alert.TriggerDataCollectorSet = "../x" }, "-rdcs"},
		{"counters too", func(s *Set) { s.Collector.Counters = []string{`\Memory\Available Bytes`} }, "not counters"},
	}
	for _, c := range cases {
		s := ok()
		c.edit(s)
		err := s.Validate()
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate() = %v, want %q", c.name, err, c.want)
		}
	}
}

// FuzzParseThreshold: any text is a threshold or an error, and a
// threshold read writes itself back as itself.
func FuzzParseThreshold(f *testing.F) {
	for _, s := range []string{`\Processor(_Total)\% Processor Time>90`, `\Memory\Available MBytes < 512.5`, `\Process(a>b)\X<1e3`, `>`, `\A\B>-0`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		th, err := ParseThreshold(s)
		if err != nil {
			return
		}
		again, err := ParseThreshold(th.String())
		if err != nil || again != th {
			t.Fatalf("%q -> %+v -> %q -> %+v, %v", s, th, th.String(), again, err)
		}
	})
}
