package otlp

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/counterpath"
)

func TestParseSelection(t *testing.T) {
	cases := []struct {
		in      string
		want    Selection
		wantErr string
	}{
		{in: "Memory", want: Selection{Object: "Memory"}},
		{in: "  Network Interface ", want: Selection{Object: "Network Interface"}},
		{in: "PhysicalDisk(sd*|nvme*)", want: Selection{Object: "PhysicalDisk", Instances: []string{"sd*", "nvme*"}}},
		{in: "Processor Information(0,*) ", want: Selection{Object: "Processor Information", Instances: []string{"0,*"}}},
		{in: "LogicalDisk(/|/home)", want: Selection{Object: "LogicalDisk", Instances: []string{"/", "/home"}}},
		{in: "238", want: Selection{Object: "238"}},
		{in: "", wantErr: "no object name"},
		{in: "(x)", wantErr: "no object name"},
		{in: "Memory(", wantErr: "no ')'"},
		{in: "Memory(a", wantErr: "no ')'"},
		{in: "Memory()", wantErr: "pattern 1 is empty"},
		{in: "Memory(a||b)", wantErr: "pattern 2 is empty"},
		{in: "Memory(a(b))", wantErr: "hold '(' or ')'"},
		{in: "Mem)ory", wantErr: "holds ')' or '|'"},
		{in: "Memory(a)x", wantErr: "no ')'"},
		{in: "\xff", wantErr: "not UTF-8"},
		{in: strings.Repeat("x", maxSelection+1), wantErr: "at most"},
	}
	for _, tc := range cases {
		got, err := ParseSelection(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSelection(%.40q) = %v, %v; want an error with %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got.Object != tc.want.Object || !slices.Equal(got.Instances, tc.want.Instances) {
			t.Errorf("ParseSelection(%q) = %#v, %v; want %#v", tc.in, got, err, tc.want)
		}
	}
}

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, name string
		want          bool
	}{
		{"*", "", true},
		{"*", "/home", true},
		{"sd*", "sda", true},
		{"sd*", "nvme0n1", false},
		{"?", "é", false}, // '?' is no wildcard in PDH's patterns
		{"eth?", "eth?", true},
		{"SD*", "sda", true}, // case is ignored, as PDH ignores it
		{"é*", "Élan", true},
		{"*a*b", "xxaxxbxxb", true},
		{"*a*b", "xxaxxbxxc", false},
		{"a*", "b", false},
		{"", "", true},
		{"", "x", false},
		{"[a]", "[a]", true}, // no classes
		{"_Total", "_Total", true},
	}
	for _, tc := range cases {
		if got := counterpath.Glob(tc.pattern, tc.name); got != tc.want {
			t.Errorf("match(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
	if !matchAny(nil, "anything") {
		t.Error("no patterns must match everything")
	}
}

func TestParseHeaders(t *testing.T) {
	cases := []struct {
		in      string
		want    map[string]string
		wantErr string
	}{
		{in: "", want: map[string]string{}},
		{in: "api-key=abc", want: map[string]string{"api-key": "abc"}},
		{in: " a=1 , b = x%20y ", want: map[string]string{"a": "1", "b": "x y"}},
		{in: "Authorization=Bearer%20t0k%3Den", want: map[string]string{"Authorization": "Bearer t0k=en"}},
		{in: "a=b=c", want: map[string]string{"a": "b=c"}},
		{in: "a=", want: map[string]string{"a": ""}},
		{in: "a", wantErr: "want key=value"},
		{in: "a=1,,b=2", wantErr: "header 2"},
		{in: "=x", wantErr: "not a header name"},
		{in: "a b=x", wantErr: "not a header name"},
		{in: "a=%zz", wantErr: "value"},
		{in: "a=x%0D%0AEvil: 1", wantErr: "line break"},
		{in: strings.Repeat("a", maxHeaders+1), wantErr: "at most"},
	}
	for _, tc := range cases {
		got, err := ParseHeaders(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseHeaders(%.40q) = %v, %v; want an error with %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("ParseHeaders(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestParseProtocol(t *testing.T) {
	for in, want := range map[string]Protocol{"": GRPC, "grpc": GRPC, " GRPC ": GRPC, "http": HTTPProtobuf, "http/protobuf": HTTPProtobuf} {
		if got, err := ParseProtocol(in); err != nil || got != want {
			t.Errorf("ParseProtocol(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseProtocol("http/json"); err == nil || !strings.Contains(err.Error(), `"http/json"`) {
		t.Errorf("http/json: %v", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	cases := []struct {
		ep       string
		proto    Protocol
		host     string
		path     string
		insecure bool
		wantErr  string
	}{
		{"", GRPC, "localhost:4317", "/v1/metrics", false, ""},
		{"", HTTPProtobuf, "localhost:4318", "/v1/metrics", false, ""},
		{"collector:4317", GRPC, "collector:4317", "/v1/metrics", false, ""},
		{"[::1]:4317", GRPC, "[::1]:4317", "/v1/metrics", false, ""},
		{"http://collector", GRPC, "collector:4317", "/v1/metrics", true, ""},
		{"https://collector", HTTPProtobuf, "collector:4318", "/v1/metrics", false, ""},
		{"https://collector:443/otlp/v1/metrics", HTTPProtobuf, "collector:443", "/otlp/v1/metrics", false, ""},
		{"http://127.0.0.1:9/", HTTPProtobuf, "127.0.0.1:9", "/v1/metrics", true, ""},
		{"collector", GRPC, "", "", false, "want host:port"},
		{"https://collector/v1/metrics", GRPC, "", "", false, "no path"},
		{"unix:///run/otel.sock", GRPC, "", "", false, `scheme "unix"`},
		{"https://collector:4318/?token=x", HTTPProtobuf, "", "", false, "query"},
	}
	for _, tc := range cases {
		host, path, insecure, err := parseEndpoint(tc.ep, tc.proto)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("parseEndpoint(%q, %s) = %q, %v; want an error with %q", tc.ep, tc.proto, host, err, tc.wantErr)
			}
			continue
		}
		if err != nil || host != tc.host || path != tc.path || insecure != tc.insecure {
			t.Errorf("parseEndpoint(%q, %s) = %q %q %v %v; want %q %q %v", tc.ep, tc.proto, host, path, insecure, err, tc.host, tc.path, tc.insecure)
		}
	}
}

// FuzzParseSelection: no input panics; a selection that parses prints
// back (String) to text that parses to the same selection; its patterns
// match as the equivalent regular expression does.
func FuzzParseSelection(f *testing.F) {
	for _, s := range []string{"Memory", "PhysicalDisk(sd*|nvme*)", "Network Interface(eth?)", "LogicalDisk(/|/home)", "a(", "(|)", "x(*a*b)"} {
		f.Add(s, "sda")
	}
	f.Fuzz(func(t *testing.T, s, name string) {
		sel, err := ParseSelection(s)
		if err != nil {
			return
		}
		again, err := ParseSelection(sel.String())
		if err != nil || again.Object != sel.Object || !slices.Equal(again.Instances, sel.Instances) {
			t.Fatalf("%q -> %#v -> %q -> %#v, %v", s, sel, sel.String(), again, err)
		}
		if !utf8.ValidString(name) {
			return
		}
		for _, p := range sel.Instances {
			if got, want := counterpath.Glob(p, name), globRegexp(p).MatchString(name); got != want {
				t.Fatalf("match(%q, %q) = %v, regexp says %v", p, name, got, want)
			}
		}
	})
}

// globRegexp is a pattern as a regular expression: the reference match
// is checked against.
func globRegexp(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^(?is:`)
	for _, r := range p {
		switch r {
		case '*':
			b.WriteString(`.*`)
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString(`)$`)
	return regexp.MustCompile(b.String())
}

// FuzzParseHeaders: no input panics, and what parses is safe to send:
// header names are tokens, values hold no line break or NUL.
func FuzzParseHeaders(f *testing.F) {
	for _, s := range []string{"", "api-key=abc", " a=1 , b = x%20y ", "a=%zz", "a=x%0D%0Ab", "=x", "a=b=c,d=%41"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHeaders(s)
		if err != nil {
			return
		}
		for k, v := range h {
			if !validHeaderName(k) || strings.ContainsAny(v, "\r\n\x00") {
				t.Fatalf("%q: unsafe header %q: %q", s, k, v)
			}
		}
	})
}
