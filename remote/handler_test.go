package remote_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfcounters/perfcounters/engine"
	"github.com/perfcounters/perfcounters/host"
	"github.com/perfcounters/perfcounters/remote"
)

// fixedClock stamps every block with the same time, so two collections
// of the static fixture tree are the same bytes.
type fixedClock struct{}

func (fixedClock) Wall() time.Time { return time.Date(2026, 11, 24, 1, 0, 0, 0, time.UTC) }
func (fixedClock) Ticks() int64    { return 123456789 }
func (fixedClock) Freq() int64     { return 1_000_000_000 }

// fixtureHost is the real local host over the fixture /proc and /sys of
// package system (system/testdata/host), with a fixed clock.
func fixtureHost(t *testing.T) *host.Host {
	t.Helper()
	root := filepath.Join("..", "system", "testdata", "host")
	h, err := host.New(host.Options{ProcRoot: filepath.Join(root, "proc"), SysRoot: filepath.Join(root, "sys"),
		Clock: fixedClock{}, MaxKeptFiles: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// recorder is a Backend that keeps a copy of the last answer of the
// backend it wraps, so a test can compare what the handler sent with
// exactly what the engine answered.
type recorder struct {
	remote.Backend
	last *engine.Result
}

func (r *recorder) Query(ctx context.Context, q engine.Query) (*engine.Result, error) {
	res, err := r.Backend.Query(ctx, q)
	if err == nil {
		cp := *res
		cp.Block = bytes.Clone(res.Block)
		r.last = &cp
	}
	return res, err
}

// serve runs one request through the handler with the given role.
func serve(t *testing.T, hd http.Handler, role remote.Role, method, target string, body io.Reader) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest(method, target, body)
	if role != remote.RoleNone {
		r = r.WithContext(remote.WithRole(r.Context(), role, "tester"))
	}
	w := httptest.NewRecorder()
	hd.ServeHTTP(w, r)
	return w
}

// errorOf decodes an error answer, failing the test when it is not the
// API's error JSON with the answer's status.
func errorOf(t *testing.T, w *httptest.ResponseRecorder) remote.Error {
	t.Helper()
	if ct := w.Header().Get("Content-Type"); ct != remote.MediaJSON {
		t.Fatalf("error answer of type %q: %s", ct, w.Body)
	}
	var eb remote.ErrorBody
	if err := json.Unmarshal(w.Body.Bytes(), &eb); err != nil {
		t.Fatalf("error body %q: %v", w.Body, err)
	}
	if eb.Error.Status != w.Code || eb.Error.Code == "" || eb.Error.Reason == "" {
		t.Fatalf("error body %+v with status %d", eb, w.Code)
	}
	return eb.Error
}

// TestQueryBlock: the answer to each kind of value is the engine's own
// answer to the same query, byte for byte, with the media type of its
// kind.
func TestQueryBlock(t *testing.T) {
	rec := &recorder{Backend: fixtureHost(t)}
	hd := remote.NewHandler(rec, remote.HandlerOptions{})
	for _, tc := range []struct {
		value string
		media string
	}{
		{"Global", remote.MediaBlock},
		{"global", remote.MediaBlock},
		{"Costly", remote.MediaBlock},
		{"238", remote.MediaBlock},
		{"2 4 238", remote.MediaBlock},
		{"999998", remote.MediaBlock}, // no such object: a block without objects
		{"Counter", remote.MediaMultiSZ},
		{"Help 009", remote.MediaMultiSZ},
	} {
		t.Run(tc.value, func(t *testing.T) {
			rec.last = nil
			w := serve(t, hd, remote.RoleMonitor, "GET", remote.PathQuery+"?value="+url.QueryEscape(tc.value), nil)
			if w.Code != http.StatusOK {
				t.Fatalf("status %d: %s", w.Code, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != tc.media {
				t.Errorf("Content-Type %q, want %q", ct, tc.media)
			}
			if cc := w.Header().Get("Cache-Control"); cc != "no-store" {
				t.Errorf("Cache-Control %q", cc)
			}
			want := rec.last
			if want == nil {
				t.Fatal("the handler answered without asking the engine")
			}
			if q, _ := engine.ParseQuery(tc.value); q.Kind == engine.QueryIndexes && len(want.Block) < 64 {
				t.Errorf("index query answered %d bytes", len(want.Block))
			}
			if !bytes.Equal(w.Body.Bytes(), want.Block) {
				t.Errorf("answer of %d bytes differs from the engine's block of %d bytes", w.Body.Len(), len(want.Block))
			}
			ps, err := remote.DecodeProblems(w.Header().Get(remote.HeaderProblems))
			if err != nil {
				t.Fatal(err)
			}
			if len(ps) != len(want.Problems)+len(want.Partial) {
				t.Errorf("%d problems in the header, the engine has %d+%d", len(ps), len(want.Problems), len(want.Partial))
			}
		})
	}
}

// TestQueryErrors: every bad value is a 400 naming the parameter.
func TestQueryErrors(t *testing.T) {
	hd := remote.NewHandler(fixtureHost(t), remote.HandlerOptions{})
	for _, tc := range []struct {
		name, target, want string
	}{
		{"missing", remote.PathQuery, "value"},
		{"empty", remote.PathQuery + "?value=", "value"},
		{"twice", remote.PathQuery + "?value=Global&value=Costly", "more than once"},
		{"foreign", remote.PathQuery + "?value=" + url.QueryEscape("Foreign db7 238"), "Foreign db7"},
		{"words after global", remote.PathQuery + "?value=" + url.QueryEscape("Global 2"), "unexpected words"},
		{"not an index", remote.PathQuery + "?value=" + url.QueryEscape("2 four"), `"four" is not a title index`},
		{"index too big", remote.PathQuery + "?value=4294967296", "not a title index"},
		{"bad language", remote.PathQuery + "?value=" + url.QueryEscape("Counter ../x"), "language"},
		{"not utf-8", remote.PathQuery + "?value=%ff", "not UTF-8"},
		{"too long", remote.PathQuery + "?value=" + strings.Repeat("2+", remote.MaxValueLength), "more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := serve(t, hd, remote.RoleMonitor, "GET", tc.target, nil)
			if w.Code != http.StatusBadRequest {
				t.Fatalf("status %d, want 400: %s", w.Code, w.Body)
			}
			e := errorOf(t, w)
			if !strings.Contains(e.Reason, tc.want) || !strings.Contains(e.Reason, "value") {
				t.Errorf("reason %q does not say %q about parameter value", e.Reason, tc.want)
			}
		})
	}
}
