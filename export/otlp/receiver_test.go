package otlp

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"
)

// received is what an OTLP receiver got: the requests and their headers.
type received struct {
	mu      sync.Mutex
	reqs    []*colmetricpb.ExportMetricsServiceRequest
	headers []map[string]string // lower-case names
}

func (r *received) add(req *colmetricpb.ExportMetricsServiceRequest, h map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.reqs = append(r.reqs, req)
	r.headers = append(r.headers, h)
}

// last returns the number of requests and the last one.
func (r *received) last() (int, *colmetricpb.ExportMetricsServiceRequest, map[string]string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		return 0, nil, nil
	}
	return len(r.reqs), r.reqs[len(r.reqs)-1], r.headers[len(r.headers)-1]
}

// grpcReceiver implements OTLP's own gRPC MetricsService.
type grpcReceiver struct {
	colmetricpb.UnimplementedMetricsServiceServer
	received
}

func (g *grpcReceiver) Export(ctx context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	h := map[string]string{}
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		for k, v := range md {
			h[strings.ToLower(k)] = strings.Join(v, ",")
		}
	}
	g.add(req, h)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// startGRPC serves the OTLP MetricsService on a loopback port without TLS
// and returns the receiver and its address.
func startGRPC(t testing.TB) (*grpcReceiver, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	rcv := &grpcReceiver{}
	colmetricpb.RegisterMetricsServiceServer(srv, rcv)
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Stop()
		<-done
	})
	return rcv, ln.Addr().String()
}

// httpReceiver is OTLP/HTTP's /v1/metrics with protobuf bodies.
type httpReceiver struct {
	received
}

func (h *httpReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/metrics" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "content type "+ct, http.StatusUnsupportedMediaType)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &colmetricpb.ExportMetricsServiceRequest{}
	if err := proto.Unmarshal(body, req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	hd := map[string]string{}
	for k, v := range r.Header {
		hd[strings.ToLower(k)] = strings.Join(v, ",")
	}
	h.add(req, hd)
	out, _ := proto.Marshal(&colmetricpb.ExportMetricsServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

// startHTTP serves OTLP/HTTP on a loopback port without TLS and returns the
// receiver and its base URL.
func startHTTP(t *testing.T) (*httpReceiver, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rcv := &httpReceiver{}
	srv := &http.Server{Handler: rcv}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return rcv, "http://" + ln.Addr().String()
}

// gotMetric is one metric of a request, flattened.
type gotMetric struct {
	unit, desc  string
	kind        string // "sum" or "gauge"
	monotonic   bool
	temporality metricpb.AggregationTemporality
	points      map[string]float64 // by attrKey
}

// attrKey writes attributes as sorted k=v pairs joined by ','.
func attrKey(kvs []*commonpb.KeyValue) string {
	parts := make([]string, 0, len(kvs))
	for _, kv := range kvs {
		var v string
		switch x := kv.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			v = x.StringValue
		case *commonpb.AnyValue_IntValue:
			v = strconv.FormatInt(x.IntValue, 10)
		default:
			v = fmt.Sprint(kv.Value)
		}
		parts = append(parts, kv.Key+"="+v)
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}

// flatten returns a request's resource attributes and metrics by name; a
// metric name seen twice is an error.
func flatten(t *testing.T, req *colmetricpb.ExportMetricsServiceRequest) (string, map[string]*gotMetric) {
	t.Helper()
	out := map[string]*gotMetric{}
	var res []string
	for _, rm := range req.ResourceMetrics {
		res = append(res, attrKey(rm.Resource.GetAttributes()))
		for _, sm := range rm.ScopeMetrics {
			if sm.Scope.GetName() != scope {
				t.Errorf("scope %q, want %q", sm.Scope.GetName(), scope)
			}
			for _, m := range sm.Metrics {
				if _, dup := out[m.Name]; dup {
					t.Errorf("metric %s twice in one request", m.Name)
				}
				g := &gotMetric{unit: m.Unit, desc: m.Description, points: map[string]float64{}}
				var pts []*metricpb.NumberDataPoint
				switch d := m.Data.(type) {
				case *metricpb.Metric_Sum:
					g.kind, g.monotonic, g.temporality = "sum", d.Sum.IsMonotonic, d.Sum.AggregationTemporality
					pts = d.Sum.DataPoints
				case *metricpb.Metric_Gauge:
					g.kind = "gauge"
					pts = d.Gauge.DataPoints
				default:
					t.Errorf("metric %s: data %T", m.Name, m.Data)
				}
				for _, p := range pts {
					k := attrKey(p.Attributes)
					if _, dup := g.points[k]; dup {
						t.Errorf("metric %s: two points {%s}", m.Name, k)
					}
					switch v := p.Value.(type) {
					case *metricpb.NumberDataPoint_AsInt:
						g.points[k] = float64(v.AsInt)
					case *metricpb.NumberDataPoint_AsDouble:
						g.points[k] = v.AsDouble
					}
					if g.kind == "sum" && p.StartTimeUnixNano == 0 {
						t.Errorf("metric %s {%s}: cumulative point without a start time", m.Name, k)
					}
				}
				out[m.Name] = g
			}
		}
	}
	return strings.Join(res, ";"), out
}
