package otlp

import (
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
)

// TestResourceAttributes: the resource carries the schema URL of
// semantic conventions 1.43, service.version, os.type and host.arch, and
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME add to and override the
// defaults, Options.Resource overriding both; a malformed variable is an
// error that names it.
func TestResourceAttributes(t *testing.T) {
	env := map[string]string{
		"OTEL_RESOURCE_ATTRIBUTES": "deployment.environment.name=prod, team=a%20b ,host.name=from-env",
		"OTEL_SERVICE_NAME":        "node-perf",
	}
	e := &Exporter{opts: Options{ServiceName: DefaultService, HostName: "web01", ServiceVersion: "v1.2.3",
		Resource: map[string]string{"team": "ops"}, Getenv: func(k string) string { return env[k] }}}
	res, err := e.resource(nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.SchemaURL() != "https://opentelemetry.io/schemas/1.43.0" {
		t.Errorf("schema URL %q", res.SchemaURL())
	}
	want := map[string]string{
		"service.name": "node-perf", "service.version": "v1.2.3", "host.name": "from-env",
		"deployment.environment.name": "prod", "team": "ops",
	}
	got := map[string]string{}
	for _, kv := range res.Attributes() {
		got[string(kv.Key)] = kv.Value.String()
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
	if got["os.type"] == "" || got["host.arch"] == "" {
		t.Errorf("no os.type or host.arch: %v", got)
	}
	for _, bad := range []string{"novalue", "=x", "k=%zz"} {
		env["OTEL_RESOURCE_ATTRIBUTES"] = bad
		if _, err := e.resource(nil); err == nil || !strings.Contains(err.Error(), "OTEL_RESOURCE_ATTRIBUTES") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}

func TestParseResourceAttributes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []attribute.KeyValue
		bad  bool
	}{
		{"", nil, false},
		{"a=1", []attribute.KeyValue{attribute.String("a", "1")}, false},
		{"a=1,b=x%2Cy", []attribute.KeyValue{attribute.String("a", "1"), attribute.String("b", "x,y")}, false},
		{"a=", []attribute.KeyValue{attribute.String("a", "")}, false},
		{"a", nil, true},
		{"a=1,,b=2", nil, true},
		{"a=%", nil, true},
	} {
		got, err := parseResourceAttributes(tc.in)
		if (err != nil) != tc.bad {
			t.Errorf("%q: error %v", tc.in, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q: %v, want %v", tc.in, got, tc.want)
			}
		}
	}
}

func FuzzParseResourceAttributes(f *testing.F) {
	for _, s := range []string{"a=1,b=2", "k=%20", "=", ",", "a=%zz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		kvs, err := parseResourceAttributes(s)
		if err == nil && len(kvs) > strings.Count(s, ",")+1 {
			t.Fatalf("%d attributes from %d items", len(kvs), strings.Count(s, ",")+1)
		}
	})
}
