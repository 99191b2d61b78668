package otlp

import (
	"encoding/pem"
	"flag"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFlags(t *testing.T) {
	srv := httptest.NewTLSServer(http.NotFoundHandler())
	defer srv.Close()
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	var o Options
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	finish := o.Flags(fs, nil)
	err := fs.Parse([]string{"-otlp-endpoint", "https://collector:4318", "-otlp-protocol", "http/protobuf",
		"-otlp-header", "api-key=a%20b", "-otlp-header", "tenant=t1", "-otlp-interval", "15s", "-otlp-timeout", "5s",
		"-otlp-object", "Memory", "-otlp-object", "PhysicalDisk(sd*|nvme*)", "-otlp-processes", "-otlp-totals",
		"-otlp-cpu-utilization", "-otlp-ca", caFile, "-otlp-process-resources",
		"-otlp-resource", "deployment.environment.name=prod,team=a%2Cb", "-otlp-resource", "team=ops"})
	if err != nil {
		t.Fatal(err)
	}
	enabled, err := finish()
	if err != nil || !enabled {
		t.Fatalf("finish: %v, %v", enabled, err)
	}
	if o.Endpoint != "https://collector:4318" || o.Protocol != HTTPProtobuf || o.Interval != 15*time.Second || o.Timeout != 5*time.Second ||
		!o.Processes || !o.Totals || !o.CPUUtilization || o.Insecure || !o.ProcessResources {
		t.Errorf("options %+v", o)
	}
	if !maps.Equal(o.Headers, map[string]string{"api-key": "a b", "tenant": "t1"}) {
		t.Errorf("headers %v", o.Headers)
	}
	// A later -otlp-resource overrides an earlier one's key.
	if !maps.Equal(o.Resource, map[string]string{"deployment.environment.name": "prod", "team": "ops"}) {
		t.Errorf("resource %v", o.Resource)
	}
	if len(o.Objects) != 2 || o.Objects[1].String() != "PhysicalDisk(sd*|nvme*)" {
		t.Errorf("objects %v", o.Objects)
	}
	if o.TLS == nil || o.TLS.RootCAs == nil || !o.TLS.RootCAs.Equal(srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs) {
		t.Errorf("TLS %+v: want the CA file's pool", o.TLS)
	}

	// Nothing asked: not enabled. Bad values: errors naming the flag's value.
	var none Options
	fs = flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	finish = none.Flags(fs, nil)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if enabled, err := finish(); enabled || err != nil {
		t.Errorf("no flags: enabled %v, %v", enabled, err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-otlp-protocol", "smoke"}, `"smoke"`},
		{[]string{"-otlp-header", "nokey"}, "key=value"},
		{[]string{"-otlp-object", "Memory("}, "no ')'"},
		{[]string{"-otlp-resource", "team"}, "not key=value"},
		{[]string{"-otlp-resource", "team=%zz"}, "team"},
		{[]string{"-otlp-endpoint", "x:1", "-otlp-cert", "c.pem"}, "go together"},
		{[]string{"-otlp-endpoint", "x:1", "-otlp-ca", filepath.Join(t.TempDir(), "missing.pem")}, "-otlp-ca"},
		{[]string{"-otlp-endpoint", "x:1", "-otlp-ca", os.DevNull}, "no PEM certificate"},
	} {
		var o Options
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		finish := o.Flags(fs, nil)
		err := fs.Parse(tc.args)
		if err == nil {
			_, err = finish()
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestHeadersOffTheCommandLine: credentials come from a private file or
// the OpenTelemetry environment variables (issue 28, item 11); a file
// other users can read is refused; a flag's header wins over both.
func TestHeadersOffTheCommandLine(t *testing.T) {
	dir := t.TempDir()
	private := filepath.Join(dir, "headers")
	if err := os.WriteFile(private, []byte("api-key=s3cret\ntenant=t1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.WriteFile(open, []byte("api-key=s3cret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "x-env=e1,tenant=fromenv"}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want map[string]string
		err  string
	}{
		{"file", []string{"-otlp-headers-file", private}, nil, map[string]string{"api-key": "s3cret", "tenant": "t1"}, ""},
		{"environment", nil, env, map[string]string{"x-env": "e1", "tenant": "fromenv"}, ""},
		{"flag wins", []string{"-otlp-header", "tenant=flag", "-otlp-headers-file", private}, env,
			map[string]string{"api-key": "s3cret", "tenant": "flag", "x-env": "e1"}, ""},
		{"file readable by others", []string{"-otlp-headers-file", open}, nil, nil, "lets other users read"},
		{"no such file", []string{"-otlp-headers-file", filepath.Join(dir, "none")}, nil, nil, "-otlp-headers-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o Options
			fs := flag.NewFlagSet("serve", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			finish := o.Flags(fs, func(k string) string { return tc.env[k] })
			if err := fs.Parse(append([]string{"-otlp-endpoint", "x:1"}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			_, err := finish()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !maps.Equal(o.Headers, tc.want) {
				t.Fatalf("headers %v, %v; want %v", o.Headers, err, tc.want)
			}
		})
	}
}
