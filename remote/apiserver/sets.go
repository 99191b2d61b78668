package apiserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/perfcounters/perfcounters/remote"
)

// maxSetBody bounds the JSON body of a set's create or change.
const maxSetBody = remote.MaxBody

// setCreate is the body of POST /v1/sets: the new set's name beside its
// definition.
type setCreate struct {
	Name string `json:"name"`
	remote.SetDefinition
}

// serveSets answers /v1/sets (rest is the path after it): GET lists and
// GET {name}/runs[/{file}] reads a set's logs (role monitor); POST
// creates, PATCH {name} changes, DELETE {name} deletes, POST
// {name}/start and {name}/stop act (role log).
func (h *Handler) serveSets(w http.ResponseWriter, r *http.Request, role remote.Role, rest string) {
	if rest == "" || rest == "/" {
		if !allow(w, r, http.MethodGet, http.MethodPost) {
			return
		}
		if r.Method == http.MethodPost {
			h.createSet(w, r, role)
			return
		}
		if len(r.URL.RawQuery) > 0 {
			badParam(w, "query", r.URL.RawQuery, "GET /v1/sets takes no parameters")
			return
		}
		if h.opts.Sets == nil {
			serveError(w, http.StatusNotImplemented, "no_sets", "this server does not manage collector sets")
			return
		}
		sets, err := h.opts.Sets.List(r.Context())
		if err != nil {
			h.opts.Logger.Error("listing collector sets failed", "err", err)
			serveError(w, http.StatusInternalServerError, "sets_failed", fmt.Sprintf("the collector sets could not be listed: %v", err))
			return
		}
		if sets == nil {
			sets = []remote.SetEntry{}
		}
		serveJSON(w, http.StatusOK, remote.SetList{Sets: sets})
		return
	}
	name, action, hasAction := strings.Cut(strings.TrimPrefix(rest, "/"), "/")
	if err := checkName(name); err != nil {
		badParam(w, "name", name, err.Error())
		return
	}
	switch {
	case !hasAction:
		if !allow(w, r, http.MethodPatch, http.MethodDelete) {
			return
		}
		h.editSet(w, r, role, name)
		return
	case action == "runs" || strings.HasPrefix(action, "runs/"):
		if allow(w, r, http.MethodGet) {
			h.serveRuns(w, r, name, strings.TrimPrefix(strings.TrimPrefix(action, "runs"), "/"))
		}
		return
	case action != "start" && action != "stop":
		serveError(w, http.StatusNotFound, "not_found", fmt.Sprintf("no such API path %q (want %s/{name}, {name}/start, stop or runs)", clipText(r.URL.Path), remote.PathSets))
		return
	}
	if !allow(w, r, http.MethodPost) {
		return
	}
	if !canChange(w, role) {
		return
	}
	if len(r.URL.RawQuery) > 0 {
		badParam(w, "query", r.URL.RawQuery, "this request takes no parameters")
		return
	}
	if h.opts.Sets == nil {
		serveError(w, http.StatusNotImplemented, "no_sets", "this server does not manage collector sets")
		return
	}
	var err error
	if action == "start" {
		err = h.opts.Sets.Start(r.Context(), name)
	} else {
		err = h.opts.Sets.Stop(r.Context(), name)
	}
	switch {
	case errors.Is(err, remote.ErrNoSet):
		serveError(w, http.StatusNotFound, "no_set", err.Error())
	case errors.Is(err, remote.ErrSetDenied):
		serveError(w, http.StatusForbidden, "forbidden", err.Error())
	case err != nil:
		h.opts.Logger.Error("collector set action failed", "set", name, "action", action, "err", err)
		serveError(w, http.StatusConflict, "set_failed", fmt.Sprintf("%s %s: %v", action, clipText(name), err))
	default:
		serveJSON(w, http.StatusOK, remote.SetAction{Name: name, Action: action, Done: true})
	}
}

// canChange answers 403 unless role may change collector sets (log).
func canChange(w http.ResponseWriter, role remote.Role) bool {
	if role < remote.RoleLog {
		serveError(w, http.StatusForbidden, "forbidden", fmt.Sprintf("managing collector sets needs the log role; this caller has %s", role))
		return false
	}
	return true
}

// editor is the server's SetEditor, or nil after answering 501.
//
// It first checks what every change of sets needs: the log role, no query
// parameters (hint says where the request's data goes instead), and a
// server that manages sets.
func (h *Handler) editor(w http.ResponseWriter, r *http.Request, role remote.Role, hint string) remote.SetEditor {
	if !canChange(w, role) {
		return nil
	}
	if len(r.URL.RawQuery) > 0 {
		badParam(w, "query", r.URL.RawQuery, hint)
		return nil
	}
	if h.opts.Sets == nil {
		serveError(w, http.StatusNotImplemented, "no_sets", "this server does not manage collector sets")
		return nil
	}
	if ed, ok := h.opts.Sets.(remote.SetEditor); ok {
		return ed
	}
	serveError(w, http.StatusNotImplemented, "no_sets", "this server does not create, change or delete collector sets")
	return nil
}

// readSetBody decodes a JSON body of at most maxSetBody bytes, no unknown
// fields, into v; false after answering the error.
func readSetBody(w http.ResponseWriter, r *http.Request, v any) bool {
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != remote.MediaJSON {
			serveError(w, http.StatusUnsupportedMediaType, "unsupported_media_type", fmt.Sprintf("Content-Type %q: want %s", clipText(ct), remote.MediaJSON))
			return false
		}
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxSetBody+1))
	if err != nil {
		serveError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("request body: %v", err))
		return false
	}
	if len(b) > maxSetBody {
		serveError(w, http.StatusRequestEntityTooLarge, "body_too_large", fmt.Sprintf("request body of more than %d bytes", maxSetBody))
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		serveError(w, http.StatusBadRequest, "bad_request", fmt.Sprintf("request body: %v", err))
		return false
	}
	if _, err := dec.Token(); err != io.EOF {
		serveError(w, http.StatusBadRequest, "bad_request", "request body: data after the JSON object")
		return false
	}
	return true
}

// serveSetError answers an error of a SetEditor with its status.
func (h *Handler) serveSetError(w http.ResponseWriter, verb, name string, err error) {
	switch {
	case errors.Is(err, remote.ErrNoSet):
		serveError(w, http.StatusNotFound, "no_set", err.Error())
	case errors.Is(err, remote.ErrSetDenied):
		serveError(w, http.StatusForbidden, "forbidden", err.Error())
	case errors.Is(err, remote.ErrSetInvalid):
		serveError(w, http.StatusBadRequest, "bad_set", err.Error())
	case errors.Is(err, remote.ErrSetExists):
		serveError(w, http.StatusConflict, "set_exists", err.Error())
	case errors.Is(err, remote.ErrSetInUse):
		serveError(w, http.StatusConflict, "set_in_use", err.Error())
	default:
		h.opts.Logger.Error("collector set change failed", "set", name, "action", verb, "err", err)
		serveError(w, http.StatusConflict, "set_failed", fmt.Sprintf("%s %s: %v", verb, clipText(name), err))
	}
}

// createSet answers POST /v1/sets.
func (h *Handler) createSet(w http.ResponseWriter, r *http.Request, role remote.Role) {
	ed := h.editor(w, r, role, "POST /v1/sets takes the set in its JSON body")
	if ed == nil {
		return
	}
	var req setCreate
	if !readSetBody(w, r, &req) {
		return
	}
	if err := checkName(req.Name); err != nil {
		badParam(w, "name", req.Name, err.Error())
		return
	}
	if err := ed.Create(r.Context(), req.Name, req.SetDefinition); err != nil {
		h.serveSetError(w, "create", req.Name, err)
		return
	}
	serveJSON(w, http.StatusCreated, remote.SetAction{Name: req.Name, Action: "create", Done: true})
}

// editSet answers PATCH and DELETE /v1/sets/{name}.
func (h *Handler) editSet(w http.ResponseWriter, r *http.Request, role remote.Role, name string) {
	ed := h.editor(w, r, role, "this request takes no parameters")
	if ed == nil {
		return
	}
	if r.Method == http.MethodDelete {
		if err := ed.Delete(r.Context(), name); err != nil {
			h.serveSetError(w, "delete", name, err)
			return
		}
		serveJSON(w, http.StatusOK, remote.SetAction{Name: name, Action: "delete", Done: true})
		return
	}
	var def remote.SetDefinition
	if !readSetBody(w, r, &def) {
		return
	}
	if err := ed.Update(r.Context(), name, def); err != nil {
		h.serveSetError(w, "update", name, err)
		return
	}
	serveJSON(w, http.StatusOK, remote.SetAction{Name: name, Action: "update", Done: true})
}

// serveRuns answers GET /v1/sets/{name}/runs (the set's logs) and
// /v1/sets/{name}/runs/{file} (one of them, its bytes).
func (h *Handler) serveRuns(w http.ResponseWriter, r *http.Request, name, file string) {
	if len(r.URL.RawQuery) > 0 {
		badParam(w, "query", r.URL.RawQuery, "this request takes no parameters")
		return
	}
	rep, ok := h.opts.Sets.(remote.SetReporter)
	if !ok || h.opts.Sets == nil {
		serveError(w, http.StatusNotImplemented, "no_sets", "this server does not list collector sets' logs")
		return
	}
	if file == "" {
		runs, err := rep.Runs(r.Context(), name)
		if err != nil {
			h.serveSetError(w, "runs", name, err)
			return
		}
		if runs == nil {
			runs = []remote.SetRun{}
		}
		serveJSON(w, http.StatusOK, remote.SetRuns{Name: name, Runs: runs})
		return
	}
	if err := checkName(file); err != nil || strings.ContainsAny(file, "/\x00") || file == "." || file == ".." {
		badParam(w, "file", file, "want a file name of the set's runs")
		return
	}
	f, err := rep.OpenRun(r.Context(), name, file)
	if err != nil {
		h.serveSetError(w, "open", name, err)
		return
	}
	defer f.Close()
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": file}))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		io.Copy(w, f)
	}
}
