package otlp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
)

// Flags registers the -otlp-* flags of a program (perfc serve) that fill
// o, and returns the function to call after parsing: it loads the TLS
// files named and reports whether OTLP export was asked for (an endpoint
// given). The flags:
//
//	-otlp-endpoint host:port or URL   enable the export (Options.Endpoint)
//	-otlp-protocol grpc|http/protobuf (Options.Protocol)
//	-otlp-insecure                    no TLS (Options.Insecure)
//	-otlp-header k=v,k2=v2            headers, OTEL_EXPORTER_OTLP_HEADERS' format; repeatable
//	-otlp-headers-file FILE           headers from a file only its owner can read (credentials)
//	-otlp-interval 60s, -otlp-timeout 30s
//	-otlp-object 'PhysicalDisk(sd*)'  an object to export, with instance patterns; repeatable
//	-otlp-processes, -otlp-totals, -otlp-cpu-utilization
//	-otlp-process-resources           one resource per process (Options.ProcessResources)
//	-otlp-resource k=v,k2=v2          resource attributes, OTEL_RESOURCE_ATTRIBUTES' format, over it; repeatable
//	-otlp-ca FILE                     PEM certificates to trust instead of the system roots
//	-otlp-cert FILE -otlp-key FILE    a client certificate (mTLS)
//
// Credentials (an API key, a bearer token) do not belong on a command
// line, which every local user reads with ps: give them in
// -otlp-headers-file, or in OTEL_EXPORTER_OTLP_METRICS_HEADERS or
// OTEL_EXPORTER_OTLP_HEADERS (the OpenTelemetry SDK's variables, read
// through getenv; nil reads none), which the flags' headers override key
// by key.
func (o *Options) Flags(fs *flag.FlagSet, getenv func(string) string) (finish func() (enabled bool, err error)) {
	var ca, cert, key, headersFile string
	fs.StringVar(&o.Endpoint, "otlp-endpoint", o.Endpoint, "push counters over OTLP to this collector: host:port or a URL (http:// for no TLS)")
	fs.Func("otlp-protocol", "OTLP transport: grpc (default) or http/protobuf", func(s string) error {
		p, err := ParseProtocol(s)
		o.Protocol = p
		return err
	})
	fs.BoolVar(&o.Insecure, "otlp-insecure", o.Insecure, "send OTLP without TLS")
	fs.Func("otlp-header", "OTLP headers as key=value,key2=value2 (values URL-encoded); repeatable", func(s string) error {
		h, err := ParseHeaders(s)
		if err != nil {
			return err
		}
		if o.Headers == nil {
			o.Headers = map[string]string{}
		}
		for k, v := range h {
			o.Headers[k] = v
		}
		return nil
	})
	fs.StringVar(&headersFile, "otlp-headers-file", "", "OTLP headers (credentials) from this file, in -otlp-header's format; it must belong to you or root and be closed to other users")
	fs.DurationVar(&o.Interval, "otlp-interval", o.Interval, "time between OTLP exports (default 60s)")
	fs.DurationVar(&o.Timeout, "otlp-timeout", o.Timeout, "limit of one OTLP collection and export (default 30s)")
	fs.Func("otlp-object", "an object to export over OTLP, with instance patterns: 'PhysicalDisk(sd*|nvme*)'; repeatable (default: the Global objects)", func(s string) error {
		sel, err := ParseSelection(s)
		if err != nil {
			return err
		}
		o.Objects = append(o.Objects, sel)
		return nil
	})
	fs.BoolVar(&o.Processes, "otlp-processes", o.Processes, "export the Process object (per-process metrics)")
	fs.BoolVar(&o.ProcessResources, "otlp-process-resources", o.ProcessResources, "with -otlp-processes, put each process's metrics under a resource of its own (process.pid, process.executable.name, process.command_line): one more OTLP request per process and export")
	fs.Func("otlp-resource", "OTLP resource attributes as key=value,key2=value2 (values percent-encoded, as in OTEL_RESOURCE_ATTRIBUTES, whose attributes these override); repeatable", func(s string) error {
		kvs, err := parseResourceAttributes(s)
		if err != nil {
			return err
		}
		if o.Resource == nil {
			o.Resource = map[string]string{}
		}
		for _, kv := range kvs {
			o.Resource[string(kv.Key)] = kv.Value.AsString()
		}
		return nil
	})
	fs.BoolVar(&o.Totals, "otlp-totals", o.Totals, "export _Total instances")
	fs.BoolVar(&o.CPUUtilization, "otlp-cpu-utilization", o.CPUUtilization, "export system.cpu.utilization")
	fs.StringVar(&ca, "otlp-ca", "", "PEM file of the certificates to trust for the collector (default: the system roots)")
	fs.StringVar(&cert, "otlp-cert", "", "PEM file of the client certificate for the collector (with -otlp-key)")
	fs.StringVar(&key, "otlp-key", "", "PEM file of the client certificate's key")
	return func() (bool, error) {
		if err := o.moreHeaders(headersFile, getenv); err != nil {
			return false, err
		}
		if (cert == "") != (key == "") {
			return false, errors.New("-otlp-cert and -otlp-key go together")
		}
		if ca == "" && cert == "" {
			return o.Endpoint != "", nil
		}
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if o.TLS != nil {
			cfg = o.TLS.Clone()
		}
		if ca != "" {
			pem, err := os.ReadFile(ca)
			if err != nil {
				return false, fmt.Errorf("-otlp-ca: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return false, fmt.Errorf("-otlp-ca %s: no PEM certificate in it", ca)
			}
			cfg.RootCAs = pool
		}
		if cert != "" {
			pair, err := tls.LoadX509KeyPair(cert, key)
			if err != nil {
				return false, fmt.Errorf("-otlp-cert %s, -otlp-key %s: %w", cert, key, err)
			}
			cfg.Certificates = []tls.Certificate{pair}
		}
		o.TLS = cfg
		return o.Endpoint != "", nil
	}
}

// maxHeadersFile bounds -otlp-headers-file.
const maxHeadersFile = 64 << 10

// moreHeaders adds the headers of the environment and of file (a private
// file: its owner the process's user or root, no access for group or
// others), under those the flags gave.
func (o *Options) moreHeaders(file string, getenv func(string) string) error {
	var sources []map[string]string
	if getenv != nil {
		for _, v := range []string{"OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_METRICS_HEADERS"} {
			if s := getenv(v); s != "" {
				h, err := ParseHeaders(s)
				if err != nil {
					return fmt.Errorf("%s: %w", v, err)
				}
				sources = append(sources, h)
			}
		}
	}
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			return fmt.Errorf("-otlp-headers-file: %w", err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return fmt.Errorf("-otlp-headers-file: %w", err)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("-otlp-headers-file %s: not a regular file", file)
		}
		if st.Mode().Perm()&0o077 != 0 {
			return fmt.Errorf("-otlp-headers-file %s: mode %04o lets other users read its credentials (chmod 600 %s)", file, st.Mode().Perm(), file)
		}
		if sys, ok := st.Sys().(*syscall.Stat_t); ok && sys.Uid != 0 && int(sys.Uid) != os.Geteuid() {
			return fmt.Errorf("-otlp-headers-file %s: belongs to uid %d, not to you (uid %d) or root", file, sys.Uid, os.Geteuid())
		}
		b, err := io.ReadAll(io.LimitReader(f, maxHeadersFile+1))
		if err != nil {
			return fmt.Errorf("-otlp-headers-file: %w", err)
		}
		if len(b) > maxHeadersFile {
			return fmt.Errorf("-otlp-headers-file %s: more than %d bytes", file, maxHeadersFile)
		}
		h, err := ParseHeaders(strings.Join(strings.Fields(string(b)), ","))
		if err != nil {
			return fmt.Errorf("-otlp-headers-file %s: %w", file, err)
		}
		sources = append(sources, h)
	}
	for _, h := range sources {
		for k, v := range h {
			if _, given := o.Headers[k]; given {
				continue // the flag's value wins
			}
			if o.Headers == nil {
				o.Headers = map[string]string{}
			}
			o.Headers[k] = v
		}
	}
	return nil
}
