package otlp

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
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
//	-otlp-interval 60s, -otlp-timeout 30s
//	-otlp-object 'PhysicalDisk(sd*)'  an object to export, with instance patterns; repeatable
//	-otlp-processes, -otlp-totals, -otlp-cpu-utilization
//	-otlp-ca FILE                     PEM certificates to trust instead of the system roots
//	-otlp-cert FILE -otlp-key FILE    a client certificate (mTLS)
func (o *Options) Flags(fs *flag.FlagSet) (finish func() (enabled bool, err error)) {
	var ca, cert, key string
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
	fs.BoolVar(&o.Totals, "otlp-totals", o.Totals, "export _Total instances")
	fs.BoolVar(&o.CPUUtilization, "otlp-cpu-utilization", o.CPUUtilization, "export system.cpu.utilization")
	fs.StringVar(&ca, "otlp-ca", "", "PEM file of the certificates to trust for the collector (default: the system roots)")
	fs.StringVar(&cert, "otlp-cert", "", "PEM file of the client certificate for the collector (with -otlp-key)")
	fs.StringVar(&key, "otlp-key", "", "PEM file of the client certificate's key")
	return func() (bool, error) {
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
