// Package logview answers the perfmon page's questions about logs: which
// counters and instances a log holds, and each counter's formatted value
// at each of its samples. It opens logs with perflog.Open (perfc's binary
// logs, Windows' BLG, PDH CSV/TSV, SQL log sets named SQL:DSN!logset)
// and computes values with pdh over the recorded samples, as relog and
// typeperf do: rates between consecutive samples, none across a gap.
//
// A Handler is mounted under /v1/logs beside the /v1 API of package
// remote, behind the same authentication (API.md in this directory):
//
//	lv := logview.New(logview.Options{})
//	mux.Handle("/v1/logs", lv)
//	mux.Handle("/v1/logs/", lv)
//
// Logs come in two ways: the server opens them (Open, perfc perfmon's
// command-line logs; GET /v1/logs lists them), or the page uploads one
// (POST /v1/logs): the upload is written to a private temporary file,
// opened, and the file removed at once (the open log keeps its data).
// Uploaded logs are reachable by their random id only and are closed,
// oldest first, past Options.MaxLogs.
package logview

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/perfcounters/perfcounters/pdh"
	"github.com/perfcounters/perfcounters/perflog"
	"github.com/perfcounters/perfcounters/remote"
	"github.com/perfcounters/perfcounters/titles"
	"github.com/perfcounters/perfcounters/utf16le"
	"github.com/perfcounters/perfcounters/wintz"
)

// Path is where the handler is mounted.
const Path = remote.APIVersion + "/logs"

// Default limits (Options).
const (
	DefaultMaxUploadBytes = 256 << 20
	DefaultMaxValues      = 2 << 20
	DefaultMaxLogs        = 8
	DefaultMaxInstances   = 100000
	// MaxRequestBytes bounds a values request's JSON body.
	MaxRequestBytes = 4 << 20
	// MaxNameLength bounds an uploaded log's name (?name=).
	MaxNameLength = 255
)

// Options configure a Handler. Zero fields take the defaults.
type Options struct {
	// MaxUploadBytes is the largest log an upload may send.
	MaxUploadBytes int64
	// MaxValues is the most values (counters x samples) one answer holds;
	// it bounds the memory of a values request.
	MaxValues int
	// MaxLogs is the most uploaded logs kept open; past it the oldest is
	// closed.
	MaxLogs int
	// MaxInstances is the most instance names a log's catalog lists (all
	// objects together); the rest are left out with a note.
	MaxInstances int
	// UploadRole is the role an upload needs (0: monitor, as every other
	// request). A server of many users (perfc serve) asks for log: an
	// upload holds disk and memory, and uploads share MaxLogs.
	UploadRole remote.Role
	// TempDir is where uploads are written ("": os.TempDir()).
	TempDir string
	// Titles names the indexes of captured PERF_DATA_BLOCK files (nil:
	// English Windows'); logs carry their own.
	Titles *titles.DB
	// CodePage names the code page of text logs whose bytes do not say
	// theirs (no byte-order mark, not UTF-8), perfc perfmon's -codepage;
	// an upload's ?codepage= names its own. utf16le.Auto guesses it, and
	// the log's notes say what was assumed.
	CodePage utf16le.CodePage
}

// Handler answers /v1/logs. Create it with New; Close closes its logs.
type Handler struct {
	opts Options

	mu      sync.Mutex
	logs    map[string]*openLog
	given   []string // ids of logs opened by Open, in order
	uploads []string // ids of uploaded logs, oldest first

	// uploaded, when set (by tests), is called with an upload's file once
	// it is written, before it is opened and removed.
	uploaded func(file string)
}

// New returns a handler with no log open.
func New(opts Options) *Handler {
	if opts.MaxUploadBytes <= 0 {
		opts.MaxUploadBytes = DefaultMaxUploadBytes
	}
	if opts.MaxValues <= 0 {
		opts.MaxValues = DefaultMaxValues
	}
	if opts.MaxLogs <= 0 {
		opts.MaxLogs = DefaultMaxLogs
	}
	if opts.MaxInstances <= 0 {
		opts.MaxInstances = DefaultMaxInstances
	}
	return &Handler{opts: opts, logs: map[string]*openLog{}}
}

// LogInfo describes an open log set (GET /v1/logs, POST /v1/logs).
type LogInfo struct {
	ID string `json:"id"`
	// Names are the logs as given (an upload's name), Formats what each
	// was read as: BIN (perfc's binary log), BLG, CSV, TSV, SQL or
	// PERF_DATA_BLOCK.
	Names   []string `json:"names"`
	Formats []string `json:"formats"`
	// Samples is how many samples the set holds; Start and End are the
	// first and last sample's times (UTC).
	Samples int       `json:"samples"`
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	// Computers are the machines whose counters the log holds.
	Computers []string `json:"computers"`
	// Zone is the zone the log was recorded in, when it says, as Windows
	// names it at the log's start (wintz.At).
	Zone string `json:"zone,omitempty"`
	// Notes are what reading the log found that its user should know.
	Notes []string `json:"notes,omitempty"`
}

// LogList is the JSON of GET /v1/logs: the logs the server opened.
type LogList struct {
	Logs []LogInfo `json:"logs"`
}

// openLog is one open log set. mu serialises its readers: a pdh source
// is read by one query at a time.
type openLog struct {
	mu   sync.Mutex
	in   *perflog.Input
	info LogInfo
	cat  *catalog
}

// Open opens logs (files, or SQL:DSN!logset) as one log set, as relog
// takes its inputs, reads its catalog and lists it in GET /v1/logs.
func (h *Handler) Open(ctx context.Context, names []string) (LogInfo, error) {
	l, err := h.open(ctx, names, names, nil, h.opts.CodePage)
	if err != nil {
		return LogInfo{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.logs[l.info.ID] = l
	h.given = append(h.given, l.info.ID)
	return l.info, nil
}

// open opens files as one set shown as names, text logs that do not say
// their code page read in cp; after is called once the files are open
// and read (an upload removes its file there).
func (h *Handler) open(ctx context.Context, files, names []string, after func(), cp utf16le.CodePage) (*openLog, error) {
	in, err := perflog.Open(ctx, files, perflog.OpenOptions{Titles: h.opts.Titles, CodePage: cp})
	if after != nil {
		defer after()
	}
	if err != nil {
		return nil, renameErr(err, files, names)
	}
	rec := in.Source.Recorded()
	if rec == nil || rec.Len() == 0 {
		in.Close()
		return nil, fmt.Errorf("%s: the log holds no sample", strings.Join(names, ", "))
	}
	cat, err := readCatalog(ctx, in.Source, h.opts.MaxInstances)
	if err != nil {
		in.Close()
		return nil, renameErr(err, files, names)
	}
	id, err := newID()
	if err != nil {
		in.Close()
		return nil, err
	}
	formats := make([]string, len(in.Formats))
	for i, f := range in.Formats {
		formats[i] = f.String()
	}
	l := &openLog{in: in, cat: cat, info: LogInfo{
		ID: id, Names: names, Formats: formats, Samples: rec.Len(),
		Start: rec.Time(0).UTC(), End: rec.Time(rec.Len() - 1).UTC(),
		Computers: cat.computers, Notes: append(renameAll(in.Notes, files, names), cat.notes...),
	}}
	if in.Location != nil && in.Location != time.Local {
		l.info.Zone = wintz.At(rec.Time(0).In(in.Location)).Name
	}
	return l, nil
}

// renameErr writes err with each temporary file name replaced by the
// name the user knows the log by.
func renameErr(err error, files, names []string) error {
	s := err.Error()
	r := renameAll([]string{s}, files, names)[0]
	if r == s {
		return err
	}
	return errors.New(r)
}

func renameAll(ss []string, files, names []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		for k, f := range files {
			if f != names[k] {
				s = strings.ReplaceAll(s, f, names[k])
			}
		}
		out[i] = s
	}
	return out
}

// newID returns a random id of 128 bits in hex: an uploaded log is
// reachable only by whoever uploaded it and was told its id.
func newID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random id for a log: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Close closes every open log.
func (h *Handler) Close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	var errs []error
	for id, l := range h.logs {
		l.mu.Lock()
		errs = append(errs, l.in.Close())
		l.mu.Unlock()
		delete(h.logs, id)
	}
	h.given, h.uploads = nil, nil
	return errors.Join(errs...)
}

// ServeHTTP answers:
//
//	GET    /v1/logs                    the logs the server opened (LogList)
//	POST   /v1/logs?name=FILE[&codepage=CP] upload a log (the body): LogInfo, 201
//	GET    /v1/logs/{id}               LogInfo
//	DELETE /v1/logs/{id}               close an uploaded log
//	GET    /v1/logs/{id}/objects       objects and counters (remote.ObjectList)
//	GET    /v1/logs/{id}/objects/{obj} one object with every instance of the log
//	GET    /v1/logs/{id}/times         every sample's time (Times)
//	POST   /v1/logs/{id}/values        values of counter paths (Values)
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if role, _ := remote.Caller(r.Context()); role < remote.RoleMonitor {
		serveError(w, http.StatusForbidden, "forbidden", "reading logs needs the monitor role")
		return
	}
	rest, ok := strings.CutPrefix(r.URL.EscapedPath(), Path)
	if !ok || (rest != "" && rest[0] != '/') {
		serveError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no such path %q under %s", clip(r.URL.Path), Path))
		return
	}
	// Segments are unescaped one by one: an object's name may hold '/'.
	parts := strings.Split(strings.Trim(rest, "/"), "/")
	for i, p := range parts {
		u, err := url.PathUnescape(p)
		if err != nil {
			serveError(w, http.StatusBadRequest, "bad_parameter", fmt.Sprintf("path segment %q: %v", clip(p), err))
			return
		}
		parts[i] = u
	}
	if parts[0] == "" {
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			h.serveList(w)
		case http.MethodPost:
			if role, _ := remote.Caller(r.Context()); role < h.opts.UploadRole {
				serveError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("opening a log on this server needs the %s role", h.opts.UploadRole))
				return
			}
			h.serveUpload(w, r)
		default:
			notAllowed(w, "GET, POST")
		}
		return
	}
	l := h.find(parts[0])
	if l == nil {
		serveError(w, http.StatusNotFound, "no_log", fmt.Sprintf("no open log %q (it may have been closed: open it again)", clip(parts[0])))
		return
	}
	switch {
	case len(parts) == 1:
		switch r.Method {
		case http.MethodGet, http.MethodHead:
			serveJSON(w, http.StatusOK, l.info)
		case http.MethodDelete:
			h.serveDelete(w, parts[0])
		default:
			notAllowed(w, "GET, DELETE")
		}
	case parts[1] == "objects" && len(parts) <= 3:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			notAllowed(w, "GET")
			return
		}
		obj := ""
		if len(parts) == 3 {
			obj = parts[2]
		}
		l.serveObjects(w, r, obj)
	case parts[1] == "times" && len(parts) == 2:
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			notAllowed(w, "GET")
			return
		}
		h.serveTimes(w, l)
	case parts[1] == "values" && len(parts) == 2:
		if r.Method != http.MethodPost {
			notAllowed(w, "POST")
			return
		}
		h.serveValues(w, r, l)
	default:
		serveError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no such path %q under %s/{id}: want objects, objects/{name}, times or values", clip(r.URL.Path), Path))
	}
}

func (h *Handler) find(id string) *openLog {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.logs[id]
}

func (h *Handler) serveList(w http.ResponseWriter) {
	h.mu.Lock()
	list := LogList{Logs: []LogInfo{}}
	for _, id := range h.given {
		list.Logs = append(list.Logs, h.logs[id].info)
	}
	h.mu.Unlock()
	serveJSON(w, http.StatusOK, list)
}

func (h *Handler) serveDelete(w http.ResponseWriter, id string) {
	h.mu.Lock()
	l := h.logs[id]
	k := -1
	for i, u := range h.uploads {
		if u == id {
			k = i
		}
	}
	if k < 0 {
		h.mu.Unlock()
		serveError(w, http.StatusForbidden, "forbidden", "a log the server opened stays open: only uploaded logs can be closed")
		return
	}
	h.uploads = append(h.uploads[:k], h.uploads[k+1:]...)
	delete(h.logs, id)
	h.mu.Unlock()
	l.mu.Lock()
	l.in.Close()
	l.mu.Unlock()
	w.WriteHeader(http.StatusNoContent)
}

// MaxUploadBytes is the largest log an upload may send (POST Path): what
// the server in front must let through (server.Options.BodyLimits).
func (h *Handler) MaxUploadBytes() int64 { return h.opts.MaxUploadBytes }

// serveUpload reads a log from the request's body into a private
// temporary file (a directory of mode 0700 holding a file of mode 0600),
// opens it and removes both.
func (h *Handler) serveUpload(w http.ResponseWriter, r *http.Request) {
	name, err := uploadName(r.URL.Query().Get("name"))
	if err != nil {
		serveError(w, http.StatusBadRequest, "bad_parameter", err.Error())
		return
	}
	cp := h.opts.CodePage
	if v := r.URL.Query().Get("codepage"); v != "" {
		if cp, err = utf16le.ParseCodePage(v); err != nil {
			serveError(w, http.StatusBadRequest, "bad_parameter", fmt.Sprintf("parameter codepage=%q: %v", clip(v), err))
			return
		}
	}
	limit := h.opts.MaxUploadBytes
	if r.ContentLength > limit {
		serveError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("%s: %d bytes, more than %d, the most a log uploaded to this server may be (open a larger log from the command line: perfc perfmon LOG)", name, r.ContentLength, limit))
		return
	}
	dir, err := os.MkdirTemp(h.opts.TempDir, "perfc-logview-*")
	if err != nil {
		serveError(w, http.StatusInternalServerError, "internal", fmt.Sprintf("%s: no temporary directory for the upload: %v", name, err))
		return
	}
	cleanup := func() { os.RemoveAll(dir) }
	file := filepath.Join(dir, "log")
	f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		cleanup()
		serveError(w, http.StatusInternalServerError, "internal", fmt.Sprintf("%s: no temporary file for the upload: %v", name, err))
		return
	}
	n, err := io.Copy(f, io.LimitReader(r.Body, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		cleanup()
		serveError(w, http.StatusBadRequest, "bad_upload", fmt.Sprintf("%s: reading the upload: %v", name, err))
		return
	case n > limit:
		cleanup()
		serveError(w, http.StatusRequestEntityTooLarge, "too_large", fmt.Sprintf("%s: more than %d bytes, the most a log uploaded to this server may be (open a larger log from the command line: perfc perfmon LOG)", name, limit))
		return
	case n == 0:
		cleanup()
		serveError(w, http.StatusBadRequest, "bad_upload", fmt.Sprintf("%s: empty upload", name))
		return
	}
	if h.uploaded != nil {
		h.uploaded(file)
	}
	l, err := h.open(r.Context(), []string{file}, []string{name}, cleanup, cp)
	if err != nil {
		serveError(w, http.StatusUnprocessableEntity, "bad_log", err.Error())
		return
	}
	h.mu.Lock()
	h.logs[l.info.ID] = l
	h.uploads = append(h.uploads, l.info.ID)
	var old []*openLog
	for len(h.uploads) > h.opts.MaxLogs {
		old = append(old, h.logs[h.uploads[0]])
		delete(h.logs, h.uploads[0])
		h.uploads = h.uploads[1:]
	}
	h.mu.Unlock()
	for _, o := range old {
		o.mu.Lock()
		o.in.Close()
		o.mu.Unlock()
	}
	serveJSON(w, http.StatusCreated, l.info)
}

// uploadName checks an upload's ?name=: the file's base name as the
// user's browser gave it, used in messages only.
func uploadName(s string) (string, error) {
	switch {
	case s == "":
		return "uploaded log", nil
	case len(s) > MaxNameLength:
		return "", fmt.Errorf("parameter name: %d bytes, more than %d", len(s), MaxNameLength)
	case !utf8.ValidString(s) || strings.ContainsAny(s, "\x00/\\"):
		return "", fmt.Errorf("parameter name=%q: want a file name (UTF-8, no NUL, '/' or '\\')", clip(s))
	}
	return s, nil
}

// ---- JSON answers ----------------------------------------------------------

func serveError(w http.ResponseWriter, status int, code, reason string) {
	serveJSON(w, status, remote.ErrorBody{Error: remote.Error{Status: status, Code: code, Reason: reason}})
}

func notAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	serveError(w, http.StatusMethodNotAllowed, "method_not_allowed", "method not allowed here: want "+allow)
}

func serveJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":{"status":500,"code":"internal","reason":"the answer could not be encoded"}}`)
	}
	w.Header().Set("Content-Type", remote.MediaJSON)
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// clip shortens text of a request quoted in an error.
func clip(s string) string {
	const n = 200
	if len(s) <= n {
		return s
	}
	for i := n; i > n-4; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "..."
		}
	}
	return s[:n] + "..."
}

var _ pdh.Source = (*oneSample)(nil)
